// Everything the loop takes from user code is read once, then checked, and only that snapshot used:
// a getter that answers differently on a second read changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, MemoryStore, Policy, RunState, tool } from "../../src/index.js";
import type { Guard, Planner } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";
import { says, scriptedModel } from "../../src/testing/index.js";

/** An object whose `key` answers `first` on the first read and `later` on every read after it. */
function twoFaced<T>(key: string, first: T, later: T, base: Record<string, unknown> = {}) {
  const counter = { reads: 0 };
  const value = { ...base };
  Object.defineProperty(value, key, {
    enumerable: true,
    get() {
      counter.reads += 1;
      return counter.reads === 1 ? first : later;
    },
  });
  return { value, counter };
}

test("a decision's usage is read once: a cost getter cannot bypass maxCost or record a negative cost", async () => {
  const usage = twoFaced("cost", 0, -19_999_900, { tokens: 0 });
  const page = tool({ name: "page", cost: 1, execute: () => "text" });
  const planner: Planner = (state) =>
    state.steps.length === 0
      ? ({ type: "act", tool: "page", args: {}, usage: usage.value } as unknown as Decision)
      : Decision.finish(state.usage.cost);
  const agent = new Agent({ tools: [page], planner, limits: { maxCost: 5 } });
  const state = await agent.run("spend");
  assert.equal(usage.counter.reads, 1);
  assert.ok(state.usage.cost >= 0, `cost ${state.usage.cost}`);
  assert.equal(state.steps[0]?.decision.usage?.cost, 0);
});

test("a decision's tool is read once: a getter cannot save a state that no store can load", async () => {
  const decision = twoFaced<unknown>("tool", "page", 42, { type: "act", args: {} });
  const page = tool({ name: "page", execute: () => "text" });
  const store = new MemoryStore();
  const planner: Planner = (state) =>
    state.steps.length === 0 ? (decision.value as unknown as Decision) : Decision.finish("done");
  const agent = new Agent({ tools: [page], planner, store });
  const state = await agent.run("read", { runId: "tool-getter" });
  assert.equal(decision.counter.reads, 1);
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.decision.type === "act" && state.steps[0].decision.tool, "page");
  const loaded = await store.load("tool-getter");
  assert.ok(loaded instanceof RunState);
  assert.deepEqual(RunState.fromJSON(state.toJSON()).toJSON(), state.toJSON());
});

test("a guard's verdict is read once: a type that reads block and then allow blocks, and the tool never runs", async () => {
  let ran = 0;
  const page = tool({
    name: "page",
    execute: () => {
      ran += 1;
      return "text";
    },
  });
  const verdict = twoFaced("type", "block", "allow", { why: "not today" });
  const guard: Guard = { name: "Rules", beforeTool: () => verdict.value as never };
  const planner: Planner = (state) =>
    state.steps.length === 0 ? Decision.act("page", {}) : Decision.finish(state.steps[0]?.outcome ?? null);
  const state = await new Agent({ tools: [page], planner, guards: [guard] }).run("read");
  assert.equal(verdict.counter.reads, 1);
  assert.equal(ran, 0);
  assert.equal(state.steps[0]?.outcome, "blocked");
});

test("a guard's verdict whose getter throws is guard_failed, and the tool never runs", async () => {
  let ran = 0;
  const page = tool({
    name: "page",
    execute: () => {
      ran += 1;
      return "text";
    },
  });
  const verdict = {
    get type(): string {
      throw new Error("no verdict");
    },
  };
  const guard: Guard = { name: "Rules", beforeTool: () => verdict as never };
  const planner: Planner = (state) => (state.steps.length === 0 ? Decision.act("page", {}) : Decision.finish(null));
  const state = await new Agent({ tools: [page], planner, guards: [guard] }).run("read");
  assert.equal(ran, 0);
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "guard_failed");
});

test("a decision getter that throws is an invalid_decision, not a crash", async () => {
  const decision = {
    type: "act",
    get tool(): string {
      throw new Error("no tool");
    },
  };
  const agent = new Agent({ tools: [], planner: () => decision as unknown as Decision });
  const state = await agent.run("read");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "invalid_decision");
});

test("an approver's Approval is read once: a Proxy whose granted reads false then true is a denial, and the write never runs", async () => {
  const written: string[] = [];
  const save = writeTextTool({ name: "save", onWrite: (text) => void written.push(text) });
  let reads = 0;
  const agent = new Agent({
    tools: [save],
    planner: (state) =>
      state.steps.length === 0
        ? Decision.act("save", { text: "pay 10" })
        : Decision.finish(state.steps[0]?.outcome ?? null),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: (request) =>
      new Proxy(Approval.deny(request.digest, "allen"), {
        get(target, property, receiver) {
          if (property !== "granted") return Reflect.get(target, property, receiver) as unknown;
          reads += 1;
          return reads > 1;
        },
      }),
  });
  const state = await agent.run("pay");
  assert.equal(reads, 1);
  assert.deepEqual(written, []);
  assert.equal(state.steps[0]?.outcome, "approval_denied");
});

test("an Approval is frozen once made: changing it afterwards changes nothing", () => {
  const approval = Approval.grant("a".repeat(64), "allen");
  assert.throws(() => {
    (approval as { granted: boolean }).granted = false;
  }, TypeError);
  assert.equal(approval.granted, true);
});

test("an Approval given to resume is read once: the state and the trail record the same answer", async () => {
  const written: string[] = [];
  const save = writeTextTool({ name: "save", onWrite: (text) => void written.push(text) });
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [save],
    planner: (state) =>
      state.steps.length === 0
        ? Decision.act("save", { text: "pay 10" })
        : Decision.finish(state.steps[0]?.outcome ?? null),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
    audit: store,
  });
  const paused = await agent.run("pay", { runId: "flip" });
  let reads = 0;
  const flipping = new Proxy(Approval.grant(paused.pending!.digest, "allen"), {
    get(target, property, receiver) {
      if (property !== "granted") return Reflect.get(target, property, receiver) as unknown;
      reads += 1;
      return reads === 1;
    },
  });
  const state = await agent.resume("flip", { approvals: [flipping] });
  assert.equal(reads, 1);
  assert.equal(state.steps[0]?.approval?.granted, true);
  const answered = (await store.read("flip")).filter((record) => record.event === "approval_answered");
  assert.deepEqual(
    answered.map((record) => (record.data as { granted?: boolean }).granted),
    [true],
  );
  assert.deepEqual(written, ["pay 10"]);
});

test("a price given to callModel is read once: an input price that reads 1 and then -1e9 charges 1 per million", async () => {
  const model = scriptedModel(
    { name: "Everyday" },
    says.handBack("done", { usage: { inputTokens: 1_000_000, outputTokens: 0 } }),
  );
  const price = twoFaced("input", 1, -1e9, { output: 0 });
  const agent = new Agent({
    tools: [],
    planner: async (_state, _tools, ctx) => {
      await ctx.callModel(
        model,
        { system: "s", messages: [{ role: "user", content: "q" }], tools: [] },
        {
          price: price.value as never,
        },
      );
      return Decision.finish("ok");
    },
  });
  const state = await agent.run("ask");
  assert.equal(price.counter.reads, 1);
  assert.equal(state.usage.cost, 1);
});
