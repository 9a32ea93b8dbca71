// A cancel or a limit that lands while an async approver is deciding keeps the call from starting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, MemoryStore, Policy, allow, tool, verifyAudit } from "../../src/index.js";
import type { ApprovalRequest, Planner } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";
import { manualClock } from "./helpers.js";

const payPlanner: Planner = (state) =>
  state.steps.length === 0 ? Decision.act("pay", { text: "10" }) : Decision.finish(state.steps[0]?.outcome ?? null);

/** An approver that grants, but only when the test lets it answer. */
function heldApprover() {
  let asked: (request: ApprovalRequest) => void = () => undefined;
  const wasAsked = new Promise<ApprovalRequest>((resolve) => (asked = resolve));
  let answer: () => void = () => undefined;
  const mayAnswer = new Promise<void>((resolve) => (answer = resolve));
  const approver = async (request: ApprovalRequest) => {
    asked(request);
    await mayAnswer;
    return Approval.grant(request.digest, "allen");
  };
  return { approver, wasAsked, answer };
}

test("a cancel that lands while an async approver decides keeps the call from starting", async () => {
  const paid: string[] = [];
  const held = heldApprover();
  const agent = new Agent({
    tools: [writeTextTool({ name: "pay", onWrite: (text) => paid.push(text) })],
    planner: payPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: held.approver,
  });
  const running = agent.run("pay 10", { runId: "late-cancel" });
  await held.wasAsked;
  const cancelled = agent.cancel("late-cancel");
  held.answer();
  const state = await running;
  assert.equal((await cancelled).status, "stopped");
  assert.deepEqual(paid, []);
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.steps[0]?.outcome, "stopped");
  assert.equal(state.toolCalls, 0);
  const events = agent.audit.records?.map((record) => record.event) ?? [];
  assert.ok(!events.includes("approval_answered"), "an answer given after the cancel is ignored");
  assert.ok(!events.includes("tool_started"));
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
});

test("time spent in an async approver does not count against maxDurationMs: it is a person's time", async () => {
  const paid: string[] = [];
  const time = manualClock();
  const agent = new Agent({
    tools: [writeTextTool({ name: "pay", onWrite: (text) => paid.push(text) })],
    planner: payPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    clock: time.clock,
    limits: { maxDurationMs: 1_000 },
    approver: (request) => {
      time.advance(5_000);
      return Promise.resolve(Approval.grant(request.digest, "allen"));
    },
  });
  const state = await agent.run("pay 10");
  assert.deepEqual(paid, ["10"]);
  assert.equal(state.status, "completed");
  assert.ok(state.toJSON().elapsedMs < 1_000);
});

test("a maxDurationMs that passes outside the approver still keeps the call from starting", async () => {
  const paid: string[] = [];
  const time = manualClock();
  const agent = new Agent({
    tools: [writeTextTool({ name: "pay", onWrite: (text) => paid.push(text) })],
    planner: (state, tools) => {
      if (state.steps.length === 0) time.advance(5_000);
      return payPlanner(state, tools, undefined as never);
    },
    policy: new Policy({ allowEffects: ["read", "write"] }),
    clock: time.clock,
    limits: { maxDurationMs: 1_000 },
    approver: (request) => Promise.resolve(Approval.grant(request.digest, "allen")),
  });
  const state = await agent.run("pay 10");
  assert.deepEqual(paid, []);
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_duration");
});

test("cancel resolves while an async approver never answers: the run ends stopped (cancelled)", async () => {
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const paid: string[] = [];
  const agent = new Agent({
    tools: [writeTextTool({ name: "pay", onWrite: (text) => paid.push(text) })],
    planner: payPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: () => {
      asked();
      return new Promise<never>(() => undefined);
    },
  });
  const running = agent.run("pay 10", { runId: "hung-approver" });
  await wasAsked;
  const cancelled = await agent.cancel("hung-approver");
  assert.equal(cancelled.status, "stopped");
  assert.equal(cancelled.stopReason, "cancelled");
  assert.equal((await running).status, "stopped");
  assert.deepEqual(paid, []);
});

for (const point of ["beforeTool", "afterTool"] as const) {
  test(`cancel resolves while a ${point} guard never answers: the run ends stopped (cancelled)`, async () => {
    let asked: () => void = () => undefined;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const hang = () => {
      asked();
      return new Promise<never>(() => undefined);
    };
    const agent = new Agent({
      tools: [tool({ name: "pay", parameters: { type: "object", properties: {} }, execute: () => "paid" })],
      planner: (state) => (state.steps.length === 0 ? Decision.act("pay", {}) : Decision.finish("ok")),
      guards: [{ name: "slow", [point]: hang }],
    });
    const running = agent.run("pay", { runId: `hung-${point}` });
    await wasAsked;
    const cancelled = await agent.cancel(`hung-${point}`);
    assert.equal(cancelled.status, "stopped");
    assert.equal(cancelled.stopReason, "cancelled");
    assert.equal((await running).status, "stopped");
    assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
  });
}

test("a cancel that lands while the approver decides to wait ends the run instead of pausing it", async () => {
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  let answer: () => void = () => undefined;
  const mayAnswer = new Promise<void>((resolve) => (answer = resolve));
  const agent = new Agent({
    tools: [writeTextTool({ name: "pay", onWrite: () => "paid" })],
    planner: payPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: async () => {
      asked();
      await mayAnswer;
      return null;
    },
  });
  const running = agent.run("pay 10", { runId: "late-pause" });
  await wasAsked;
  const cancelled = agent.cancel("late-pause");
  answer();
  const state = await running;
  await cancelled;
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.pending, undefined);
  assert.equal(state.steps[0]?.outcome, "stopped");
});

test("a crash-recovery restart that a cancel keeps from starting leaves its step interrupted, not stopped", async () => {
  const store = new MemoryStore();
  let started: () => void = () => undefined;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const hangs = tool({
    name: "call",
    idempotent: true,
    execute: () => {
      started();
      return new Promise(() => undefined);
    },
  });
  const planner: Planner = (state) =>
    state.steps.length === 0 ? Decision.act("call", {}) : Decision.finish(state.steps[0]?.outcome ?? null);
  void new Agent({ tools: [hangs], planner, store }).run("call", { runId: "restart-cancel" });
  await inFlight;
  let restarts = 0;
  const again = tool({ name: "call", idempotent: true, execute: () => ++restarts });
  let cancelled: Promise<unknown> | undefined;
  const resumer: Agent = new Agent({
    tools: [again],
    planner,
    store,
    // The cancel lands while the restart passes its gates.
    guards: [{ name: "cancels", beforeTool: () => ((cancelled = resumer.cancel("restart-cancel")), allow()) }],
  });
  const state = await resumer.resume("restart-cancel");
  await cancelled;
  assert.equal(restarts, 0);
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.steps[0]?.outcome, "interrupted");
  assert.deepEqual((await store.load("restart-cancel"))?.toJSON(), state.toJSON());
});
