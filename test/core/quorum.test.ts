import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  Agent,
  Approval,
  Decision,
  isLeashError,
  MemoryAuditSink,
  MemoryStore,
  Policy,
  stateAgreesWithTrail,
  tool,
} from "../../src/index.js";
import type { ApprovalRequest, Approver, RunState, RunStore, AuditSink } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { callOf } from "../helpers/call-request.js";

/** A payment agent whose policy asks two people for `pay` (or `quorum` as given). */
function payAgent(
  store: RunStore,
  options: {
    quorum?: (request: ApprovalRequest) => number;
    mayApprove?: (approver: string) => boolean;
    approver?: Approver;
    audit?: AuditSink;
  } = {},
) {
  const paid: unknown[] = [];
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    execute: (args) => {
      paid.push(args);
      return { paid: true };
    },
  });
  const policy = new Policy({
    allowEffects: ["read", "write"],
    quorum: options.quorum ?? ((request) => (request.tool === "pay" ? 2 : 1)),
    ...(options.mayApprove === undefined ? {} : { mayApprove: options.mayApprove }),
  });
  const agent = new Agent({
    tools: [pay],
    policy,
    store,
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", { amount: 30 }) : Decision.finish("done")),
  });
  return { agent, paid };
}

async function assertVerifies(store: RunStore & AuditSink, state: RunState): Promise<void> {
  const saved = await store.load(state.runId);
  assert.deepEqual(stateAgreesWithTrail(saved!, await store.read(state.runId)).problems, []);
}

function eventsOf(records: readonly { event: string }[]): string[] {
  return records.map((record) => record.event);
}

/** The quorum behaviours, on one store kind. */
async function quorumCases(open: () => Promise<{ store: RunStore & AuditSink; close: () => Promise<void> }>) {
  const { store, close } = await open();
  try {
    // The same person twice counts once: the run stays paused and nothing runs.
    {
      const { agent, paid } = payAgent(store);
      const paused = await agent.run("pay", { runId: "twice" });
      assert.equal(callOf(paused)?.quorum, 2);
      assert.deepEqual(callOf(paused)?.grantedBy, []);
      const digest = paused.pending!.digest;
      const first = await agent.resume("twice", { approvals: [Approval.grant(digest, "noor")] });
      assert.equal(first.status, "awaiting_approval");
      assert.deepEqual(callOf(first)?.grantedBy, ["noor"]);
      const again = await agent.resume("twice", { approvals: [Approval.grant(digest, "noor")] });
      assert.equal(again.status, "awaiting_approval");
      assert.deepEqual(callOf(again)?.grantedBy, ["noor"]);
      assert.deepEqual(paid, []);
      // A resume with nothing new writes nothing.
      const revision = (await store.load("twice"))?.revision;
      const quiet = await agent.resume("twice");
      assert.equal(quiet.status, "awaiting_approval");
      assert.equal((await store.load("twice"))?.revision, revision);
      // grantedBy is saved, and each answer is audited.
      assert.deepEqual(callOf(await store.load("twice"))?.grantedBy, ["noor"]);
      const answered = (await store.read("twice")).filter((record) => record.event === "approval_answered");
      assert.equal(answered.length, 2);
      await assertVerifies(store, again);
    }
    // Two distinct approvers: the call runs once; one recorded by store.answer, one given to resume.
    {
      const { agent, paid } = payAgent(store);
      const paused = await agent.run("pay", { runId: "two" });
      const digest = paused.pending!.digest;
      await store.answer("two", Approval.grant(digest, "noor"));
      await store.answer("two", Approval.grant(digest, "noor"));
      await store.answer("two", Approval.grant(digest, "sam"));
      const done = await agent.resume("two");
      assert.equal(done.status, "completed");
      assert.deepEqual(paid, [{ amount: 30 }]);
      await assertVerifies(store, done);
    }
    // One allowed denial after a grant stops the call.
    {
      const { agent, paid } = payAgent(store);
      const paused = await agent.run("pay", { runId: "denied" });
      const digest = paused.pending!.digest;
      const short = await agent.resume("denied", { approvals: [Approval.grant(digest, "noor")] });
      assert.equal(short.status, "awaiting_approval");
      await assertVerifies(store, short);
      const ended = await agent.resume("denied", { approvals: [Approval.deny(digest, "sam", "not this month")] });
      assert.deepEqual(paid, []);
      assert.equal(ended.steps[0]?.outcome, "approval_denied");
      await assertVerifies(store, ended);
    }
    // An approver the policy refuses does not count.
    {
      const { agent, paid } = payAgent(store, { mayApprove: (approver) => approver !== "mallory" });
      const paused = await agent.run("pay", { runId: "refused" });
      const digest = paused.pending!.digest;
      await store.answer("refused", Approval.grant(digest, "mallory"));
      const short = await agent.resume("refused", { approvals: [Approval.grant(digest, "noor")] });
      assert.equal(short.status, "awaiting_approval");
      assert.deepEqual(callOf(short)?.grantedBy, ["noor"]);
      assert.deepEqual(paid, []);
      await assertVerifies(store, short);
      const done = await agent.resume("refused", { approvals: [Approval.grant(digest, "sam")] });
      assert.equal(done.status, "completed");
      assert.deepEqual(paid, [{ amount: 30 }]);
      await assertVerifies(store, done);
    }
  } finally {
    await close();
  }
}

test("a quorum of two on a SQLite file: the same person twice stays paused, two people run it once, a denial stops it, a refused approver does not count", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  await quorumCases(async () => {
    const store = new SqliteStore(join(folder.path, "runs.db"));
    return { store, close: async () => store.close() };
  });
});

test("a quorum of two in a MemoryStore", async () => {
  const store = new MemoryStore();
  await quorumCases(async () => ({ store, close: async () => undefined }));
});

withPostgres("quorum on PostgreSQL", (url) => {
  test("a quorum of two on PostgreSQL", async () => {
    const schema = freshSchemaName();
    try {
      await quorumCases(async () => {
        const store = new PostgresStore({ connectionString: url, schema });
        return { store, close: () => store.close() };
      });
    } finally {
      await dropSchema(url, schema);
    }
  });
});

test("a quorum that throws or is not an integer from 1 to 100 fails the run with policy_failed", async () => {
  const bad: [string, (request: ApprovalRequest) => number][] = [
    [
      "throws",
      () => {
        throw new Error("no directory");
      },
    ],
    ["zero", () => 0],
    ["over", () => 101],
    ["fraction", () => 1.5],
    ["text", () => "2" as unknown as number],
  ];
  for (const [name, quorum] of bad) {
    const store = new MemoryStore();
    const { agent, paid } = payAgent(store, { quorum });
    const state = await agent.run("pay", { runId: name });
    assert.equal(state.status, "failed", name);
    assert.equal(state.failure?.code, "policy_failed", name);
    assert.deepEqual(paid, []);
    assert.deepEqual(stateAgreesWithTrail(state, await store.read(name)).problems, [], name);
  }
});

test("a quorum of one behaves as before, and quorum must be a function", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store, { quorum: () => 1 });
  const paused = await agent.run("pay", { runId: "one" });
  assert.equal(callOf(paused)?.quorum, 1);
  const done = await agent.resume("one", { approvals: [Approval.grant(paused.pending!.digest, "noor")] });
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [{ amount: 30 }]);
  assert.throws(
    () => new Policy({ quorum: 2 as never }),
    (error) => isLeashError(error, "invalid_option") && /quorum/.test((error as Error).message),
  );
});

test("an approver callable counts as one answer under a quorum: the run pauses with its grant recorded", async () => {
  const store = new MemoryStore();
  const audit = new MemoryAuditSink();
  const { agent, paid } = payAgent(store, { audit, approver: (request) => Approval.grant(request.digest, "bot") });
  const paused = await agent.run("pay", { runId: "callable" });
  assert.equal(paused.status, "awaiting_approval");
  assert.deepEqual(callOf(paused)?.grantedBy, ["bot"]);
  assert.deepEqual(eventsOf(await audit.read("callable")).slice(-3), [
    "approval_requested",
    "run_paused",
    "approval_answered",
  ]);
  assert.deepEqual(stateAgreesWithTrail((await store.load("callable"))!, await audit.read("callable")).problems, []);
  const done = await agent.resume("callable", { approvals: [Approval.grant(paused.pending!.digest, "noor")] });
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [{ amount: 30 }]);
  assert.deepEqual(stateAgreesWithTrail((await store.load("callable"))!, await audit.read("callable")).problems, []);
});
