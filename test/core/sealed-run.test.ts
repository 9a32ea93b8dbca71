// A run that has ended is sealed: a model call, a guard's answer or a streamed delta that comes in
// after the run ended changes neither the state that was returned nor the store nor the trail, and
// the late caller is told so (`limit_reached`, as for every model call the run cannot make).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, MemoryStore, Policy, isLeashError, verifyAudit } from "../../src/index.js";
import type { Guard, ModelClient, ModelResponse, PlannerContext, RunState } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";

/** A model whose answer comes when the test says, charging `cost` (input tokens at a price of 1e6 per million). */
function heldModel(cost: number, options: { stream?: boolean } = {}) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const model: ModelClient = {
    name: `held-${cost}`,
    price: { input: 1_000_000, output: 0 },
    async generate(_request, { onText }): Promise<ModelResponse> {
      asked();
      await released;
      if (options.stream === true) onText?.("late text");
      return { calls: [], text: "late", usage: { inputTokens: cost, outputTokens: 0 } };
    },
  };
  return { model, release, wasAsked };
}

const request = { system: "", messages: [{ role: "user" as const, content: "go" }], tools: [] };

/** The stored state, the trail and the returned state, compared as they were when the run returned. */
async function snapshot(store: MemoryStore, state: RunState) {
  return {
    returned: JSON.stringify(state.toJSON()),
    stored: JSON.stringify((await store.load(state.runId))?.toJSON()),
    trail: (await store.read(state.runId)).length,
  };
}

test("a model call that finishes after its run completed changes neither the returned state nor the store nor the trail", async () => {
  const store = new MemoryStore();
  const fast = heldModel(1);
  const slow = heldModel(5, { stream: true });
  let late: Promise<unknown> | undefined;
  const texts: string[] = [];
  const agent = new Agent({
    tools: [],
    store,
    planner: async (_state, _tools, context) => {
      // A planner racing two calls: it answers with the first and leaves the second running.
      late = context.callModel(slow.model, request);
      late.catch(() => undefined);
      fast.release();
      await context.callModel(fast.model, request);
      return Decision.finish("done");
    },
  });
  agent.on("text", ({ delta }) => texts.push(delta));
  const records: string[] = [];
  agent.on("record", (record) => records.push(record.event));
  const state = await agent.run("race two calls", { runId: "raced" });
  assert.equal(state.status, "completed");
  assert.equal(state.usage.cost, 1);
  const before = await snapshot(store, state);
  const recordsBefore = records.length;

  slow.release();
  await assert.rejects(late!, (error: unknown) => isLeashError(error, "limit_reached"));

  assert.deepEqual(await snapshot(store, state), before);
  assert.equal(state.usage.cost, 1, "the returned state was not charged for the late call");
  assert.equal(records.length, recordsBefore, "no record was made after the end");
  assert.deepEqual(texts, [], "no text was streamed after the end");
  const trail = await store.read("raced");
  assert.equal(trail.at(-1)?.event, "run_ended");
  assert.deepEqual(state.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
  assert.deepEqual(verifyAudit(trail), []);
  // A later resume still sees an ended run, not one pointed at a record that was never written.
  await assert.rejects(agent.resume("raced"), (error: unknown) => isLeashError(error, "run_ended"));
});

test("a planner that calls the model after its run ended is refused with limit_reached and nothing is written", async () => {
  const store = new MemoryStore();
  const model = heldModel(2);
  model.release();
  let kept: PlannerContext | undefined;
  const agent = new Agent({
    tools: [],
    store,
    planner: (_state, _tools, context) => {
      kept = context;
      return Decision.finish("done");
    },
  });
  const state = await agent.run("end at once", { runId: "kept-context" });
  const before = await snapshot(store, state);
  await assert.rejects(kept!.callModel(model.model, request), (error: unknown) => isLeashError(error, "limit_reached"));
  assert.deepEqual(await snapshot(store, state), before);
});

test("a guard that blocks a model call after its run ended writes no block and no said line", async () => {
  const store = new MemoryStore();
  const model = heldModel(0);
  model.release();
  let decide: () => void = () => undefined;
  const decided = new Promise<void>((resolve) => (decide = resolve));
  let guardAsked: () => void = () => undefined;
  const wasGuardAsked = new Promise<void>((resolve) => (guardAsked = resolve));
  const slowGuard: Guard = {
    name: "Slow rules",
    async afterModel() {
      guardAsked();
      await decided;
      return { type: "block", why: "too late to matter" };
    },
  };
  let late: Promise<unknown> | undefined;
  const agent = new Agent({
    tools: [],
    store,
    guards: [slowGuard],
    planner: async (_state, _tools, context) => {
      late = context.callModel(model.model, request);
      late.catch(() => undefined);
      await wasGuardAsked;
      return Decision.finish("done");
    },
  });
  const state = await agent.run("finish while a guard thinks", { runId: "late-guard" });
  assert.equal(state.status, "completed");
  const before = await snapshot(store, state);
  decide();
  await assert.rejects(late!, (error: unknown) => isLeashError(error, "limit_reached"));
  assert.deepEqual(await snapshot(store, state), before);
  assert.deepEqual(state.said, []);
});

test("a model call that finishes after its run paused for approval does not change the paused state", async () => {
  const store = new MemoryStore();
  const slow = heldModel(4);
  let late: Promise<unknown> | undefined;
  const agent = new Agent({
    tools: [writeTextTool({ name: "save", onWrite: () => undefined })],
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
    planner: (_state, _tools, context) => {
      late = context.callModel(slow.model, request);
      late.catch(() => undefined);
      return Decision.act("save", { text: "x" });
    },
  });
  const state = await agent.run("pause while a call runs", { runId: "late-pause" });
  assert.equal(state.status, "awaiting_approval");
  const before = await snapshot(store, state);
  slow.release();
  await assert.rejects(late!, (error: unknown) => isLeashError(error, "limit_reached"));
  assert.deepEqual(await snapshot(store, state), before);
  assert.equal(state.usage.cost, 0);
});
