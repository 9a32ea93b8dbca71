import { test } from "node:test";
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  Gate,
  MemoryStore,
  Policy,
  isLeashError,
  stateAgreesWithTrail,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type {
  ApprovalRequest,
  LimitApprovalRequest,
  Limits,
  Planner,
  RaisableLimit,
  RunState,
} from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";

/** A read tool that counts its calls and costs `cost` each. */
function counter(calls: number[], cost = 0) {
  return tool({
    name: "tick",
    cost,
    execute: () => {
      calls.push(calls.length);
      return calls.length;
    },
  });
}

/** Ticks until `ticks` calls ran, then finishes with the count. */
function ticker(ticks: number, usage?: { tokens: number; cost: number }): Planner {
  return (state) =>
    state.toolCalls >= ticks
      ? Decision.finish(state.toolCalls)
      : Decision.act("tick", {}, usage === undefined ? {} : { usage });
}

function sqliteStore(t: TestContext): SqliteStore {
  const folder = tempFolder();
  t.after(folder.remove);
  const store = new SqliteStore(`${folder.path}/runs.db`);
  t.after(() => store.close());
  return store;
}

function limitPending(state: RunState): LimitApprovalRequest {
  const pending = state.pending;
  assert.equal(state.status, "awaiting_approval");
  assert.equal(pending?.kind, "limit", JSON.stringify(pending));
  return pending;
}

async function verifiesClean(store: SqliteStore, runId: string): Promise<void> {
  const trail = await store.read(runId);
  assert.deepEqual(verifyAudit(trail), []);
  const state = await store.load(runId);
  assert.deepEqual(stateAgreesWithTrail(state!, trail).problems, []);
}

const cases: {
  limit: RaisableLimit;
  limits: Limits;
  planner: Planner;
  cost?: number;
  used: number;
  allowed: number;
  step: number;
  raiseTo: number;
}[] = [
  { limit: "max_steps", limits: { maxSteps: 2 }, planner: ticker(3), used: 2, allowed: 2, step: 2, raiseTo: 5 },
  {
    limit: "max_tool_calls",
    limits: { maxToolCalls: 2 },
    planner: ticker(3),
    used: 2,
    allowed: 2,
    step: 2,
    raiseTo: 3,
  },
  {
    limit: "max_cost",
    limits: { maxCost: 2.5 },
    planner: ticker(3),
    cost: 1,
    used: 2,
    allowed: 2.5,
    step: 2,
    raiseTo: 3,
  },
  {
    limit: "max_tokens",
    limits: { maxTokens: 100 },
    planner: ticker(3, { tokens: 50, cost: 0 }),
    used: 100,
    allowed: 100,
    step: 2,
    raiseTo: 200,
  },
];

for (const item of cases) {
  test(`${item.limit} named in askToRaise pauses the run instead of stopping it, and a raise goes on where it stopped`, async (t) => {
    const store = sqliteStore(t);
    const calls: number[] = [];
    const agent = new Agent({
      tools: [counter(calls, item.cost ?? 0)],
      planner: item.planner,
      store,
      limits: { ...item.limits, askToRaise: [item.limit] },
    });
    const paused = await agent.run("tick three times", { runId: `raise-${item.limit}` });
    const pending = limitPending(paused);
    assert.deepEqual(
      { limit: pending.limit, used: pending.used, allowed: pending.allowed, step: pending.step },
      { limit: item.limit, used: item.used, allowed: item.allowed, step: item.step },
    );
    assert.match(pending.digest, /^[0-9a-f]{64}$/);
    assert.equal(calls.length, 2);
    await verifiesClean(store, paused.runId);

    const done = await agent.resume(paused.runId, {
      approvals: [Approval.raise(pending.digest, "noor", item.raiseTo, "month end")],
    });
    assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
    assert.equal(done.answer, 3);
    assert.equal(calls.length, 3);
    const raised = (await store.read(paused.runId)).filter((record) => record.event === "limit_raised");
    assert.deepEqual(
      raised.map((record) => record.data),
      [{ limit: item.limit, from: item.allowed, to: item.raiseTo, by: "noor" }],
    );
    await verifiesClean(store, paused.runId);
  });
}

test("a limit not named in askToRaise still stops the run", async () => {
  const agent = new Agent({
    tools: [counter([])],
    planner: ticker(5),
    limits: { maxSteps: 2, maxToolCalls: 1, askToRaise: ["max_steps"] },
  });
  const state = await agent.run("tick");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_tool_calls");
  assert.equal(state.pending, undefined);
});

test("askToRaise with an unknown name, or not an array, is invalid_option naming it", () => {
  for (const askToRaise of [["max_duration"], ["maxCost"], "max_cost", [1]]) {
    assert.throws(
      () => new Agent({ tools: [], planner: () => Decision.finish(1), limits: { askToRaise } as unknown as Limits }),
      (error) => isLeashError(error, "invalid_option") && /askToRaise/.test(error.message),
    );
  }
});

test("a gate refuses askToRaise: a session's limits stop it", () => {
  assert.throws(
    () => new Gate({ tools: [], store: new MemoryStore(), limits: { maxCost: 1, askToRaise: ["max_cost"] } }),
    (error) => isLeashError(error, "invalid_option") && /askToRaise/.test(error.message),
  );
});

test("a raise at or below what was used, not a number, or not whole for max_steps is invalid_answer and writes nothing", async (t) => {
  const store = sqliteStore(t);
  const agent = new Agent({
    tools: [counter([])],
    planner: ticker(5),
    store,
    limits: { maxSteps: 2, askToRaise: ["max_steps"] },
  });
  const paused = await agent.run("tick", { runId: "bad-raise" });
  const { digest } = limitPending(paused);
  const before = await store.read(paused.runId);
  const saved = (await store.load(paused.runId))!.toJSON();
  const bad = [
    Approval.raise(digest, "noor", 2),
    Approval.raise(digest, "noor", 1),
    Approval.raise(digest, "noor", Number.NaN),
    Approval.raise(digest, "noor", Number.POSITIVE_INFINITY),
    Approval.raise(digest, "noor", 2.5),
    Approval.grant(digest, "noor"),
  ];
  for (const answer of bad) {
    await assert.rejects(agent.resume(paused.runId, { approvals: [answer] }), (error) =>
      isLeashError(error, "invalid_answer"),
    );
    await assert.rejects(store.answer(paused.runId, answer), (error) => isLeashError(error, "invalid_answer"));
  }
  assert.deepEqual(await store.read(paused.runId), before);
  assert.deepEqual((await store.load(paused.runId))!.toJSON(), saved);
  assert.equal((await store.load(paused.runId))!.status, "awaiting_approval");
});

test("a raise given to a call request is invalid_answer and writes nothing", async (t) => {
  const store = sqliteStore(t);
  const pay = tool({ name: "pay", effect: "write", execute: () => "paid" });
  const agent = new Agent({
    tools: [pay],
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", {}) : Decision.finish("ok")),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
  });
  const paused = await agent.run("pay", { runId: "raise-a-call" });
  assert.equal(paused.pending?.kind, "call");
  const before = await store.read(paused.runId);
  const raise = Approval.raise(paused.pending.digest, "noor", 10);
  await assert.rejects(agent.resume(paused.runId, { approvals: [raise] }), (error) =>
    isLeashError(error, "invalid_answer"),
  );
  await assert.rejects(store.answer(paused.runId, raise), (error) => isLeashError(error, "invalid_answer"));
  assert.deepEqual(await store.read(paused.runId), before);
});

test("a denial of a raise ends the run stopped with that limit's reason", async (t) => {
  const store = sqliteStore(t);
  const calls: number[] = [];
  const agent = new Agent({
    tools: [counter(calls)],
    planner: ticker(5),
    store,
    limits: { maxToolCalls: 1, askToRaise: ["max_tool_calls"] },
  });
  const paused = await agent.run("tick", { runId: "denied-raise" });
  const { digest, step } = limitPending(paused);
  const ended = await agent.resume(paused.runId, { approvals: [Approval.deny(digest, "noor", "enough")] });
  assert.equal(ended.status, "stopped");
  assert.equal(ended.stopReason, "max_tool_calls");
  assert.equal(ended.steps[step]?.outcome, "stopped");
  assert.equal(calls.length, 1);
  assert.equal(ended.limits?.maxToolCalls ?? 1, 1);
  await verifiesClean(store, paused.runId);
});

test("of several allowed raises the smallest applies, and a denial among them wins", async (t) => {
  const store = sqliteStore(t);
  const agent = new Agent({
    tools: [counter([])],
    planner: ticker(20),
    store,
    limits: { maxSteps: 2, askToRaise: ["max_steps"] },
  });
  const paused = await agent.run("tick", { runId: "smallest-raise" });
  const { digest } = limitPending(paused);
  await store.answer(paused.runId, Approval.raise(digest, "noor", 9));
  const again = await agent.resume(paused.runId, {
    approvals: [Approval.raise(digest, "mia", 4), Approval.raise(digest, "ava", 6)],
  });
  // Raised to 4: two more decisions, then it asks again at 4.
  const next = limitPending(again);
  assert.deepEqual({ used: next.used, allowed: next.allowed, step: next.step }, { used: 4, allowed: 4, step: 4 });
  const raised = (await store.read(paused.runId)).filter((record) => record.event === "limit_raised");
  assert.deepEqual(raised.at(-1)?.data, { limit: "max_steps", from: 2, to: 4, by: "mia" });
  await verifiesClean(store, paused.runId);

  const denied = await agent.resume(paused.runId, {
    approvals: [Approval.raise(next.digest, "noor", 8), Approval.deny(next.digest, "mia")],
  });
  assert.equal(denied.status, "stopped");
  assert.equal(denied.stopReason, "max_steps");
  await verifiesClean(store, paused.runId);
});

test("policy.mayApprove sees the limit request, so only a spend manager may raise max_cost", async (t) => {
  const store = sqliteStore(t);
  const seen: ApprovalRequest[] = [];
  const agent = new Agent({
    tools: [counter([], 1)],
    planner: ticker(3),
    store,
    policy: new Policy({
      mayApprove: (approver, request) => {
        seen.push(request);
        return request.kind !== "limit" || request.limit !== "max_cost" || approver === "finance";
      },
    }),
    limits: { maxCost: 1, askToRaise: ["max_cost"] },
  });
  const paused = await agent.run("tick", { runId: "may-raise" });
  const { digest } = limitPending(paused);
  const before = await store.read(paused.runId);
  await assert.rejects(agent.resume(paused.runId, { approvals: [Approval.raise(digest, "intern", 100)] }), (error) =>
    isLeashError(error, "approver_not_allowed"),
  );
  assert.deepEqual(await store.read(paused.runId), before);
  assert.equal(seen.at(-1)?.kind, "limit");
  assert.equal((seen.at(-1) as LimitApprovalRequest).limit, "max_cost");
  const done = await agent.resume(paused.runId, { approvals: [Approval.raise(digest, "finance", 3)] });
  assert.equal(done.status, "completed");
  assert.equal(done.usage.cost, 3);
});

test("a limit met inside ctx.callModel is asked at the next planner check", async (t) => {
  const store = sqliteStore(t);
  let modelCalls = 0;
  const client = {
    name: "counting",
    generate: async () => {
      modelCalls += 1;
      return { calls: [], text: "ok", usage: { inputTokens: 30, outputTokens: 30 } };
    },
  };
  // Two model calls per decision: the second of the second decision meets max_tokens.
  const planner: Planner = async (state, _tools, ctx) => {
    if (state.steps.length >= 2) return Decision.finish("done");
    const request = { system: "", messages: [], tools: [] };
    await ctx.callModel(client, request);
    await ctx.callModel(client, request);
    return Decision.act("tick", {});
  };
  const agent = new Agent({
    tools: [counter([])],
    planner,
    store,
    limits: { maxTokens: 150, askToRaise: ["max_tokens"] },
  });
  const paused = await agent.run("think", { runId: "inside-call-model" });
  const pending = limitPending(paused);
  assert.deepEqual(
    { used: pending.used, allowed: pending.allowed, step: pending.step },
    { used: 180, allowed: 150, step: 1 },
  );
  assert.equal(paused.steps.length, 1);
  assert.equal(modelCalls, 3);
  const done = await agent.resume(paused.runId, { approvals: [Approval.raise(pending.digest, "noor", 1000)] });
  assert.equal(done.status, "completed");
  assert.equal(modelCalls, 5);
  await verifiesClean(store, paused.runId);
});
