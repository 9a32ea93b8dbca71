import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  MemoryAuditSink,
  MemoryStore,
  Policy,
  RunState,
  isLeashError,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type { CallApprovalRequest } from "../../src/index.js";
import { saveTool, writerPlanner } from "./helpers.js";

const writePolicy = () => new Policy({ allowEffects: ["read", "write"] });

test("the approval round trip: a write pauses, the approval runs it once, read back from the store", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy(), store });
  const paused = await agent.run("save the report");
  assert.equal(paused.status, "awaiting_approval");
  assert.deepEqual(written, []);
  const request = paused.pending as CallApprovalRequest;
  assert.equal(request.kind, "call");
  assert.equal(request.tool, "save");
  assert.deepEqual(request.args, { text: "the report" });
  assert.equal(request.effect, "write");
  assert.match(request.digest, /^[0-9a-f]{64}$/);
  const approval = new Approval(request.digest, { granted: true, approver: "allen" });
  const done = await agent.resume(paused.runId, { approvals: [approval] });
  assert.deepEqual(written, ["the report"]);
  assert.equal(done.answer, "executed");
  assert.equal(done.status, "completed");
  assert.deepEqual(verifyAudit(store.records), []);
  await assert.rejects(agent.resume(paused.runId, { approvals: [approval] }), (error) =>
    isLeashError(error, "run_ended"),
  );
  assert.deepEqual(written, ["the report"]);
});

test("a write tool under the default policy is effect_denied and never runs", async () => {
  const written: string[] = [];
  const agent = new Agent({ tools: [saveTool(written)], planner: writerPlanner });
  const state = await agent.run("save the report");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "effect_denied");
  assert.deepEqual(written, []);
});

test("a refusal is the step's outcome approval_denied, and the tool never runs", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy(), store });
  const paused = await agent.run("save the report");
  const done = await agent.resume(paused.runId, {
    approvals: [Approval.deny(paused.pending!.digest, "allen", "not today")],
  });
  assert.equal(done.steps[0]?.outcome, "approval_denied");
  assert.equal(done.answer, "approval_denied");
  assert.deepEqual(written, []);
});

test("an approval of an action that changed since authorises nothing (approval_stale)", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const before = new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy(), store });
  const paused = await before.run("save the report");
  // The tool is redefined between the request and the answer: it now needs a scope, so the action's
  // digest (which covers effect and scopes) is not the one approved.
  const changed = tool({
    name: "save",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    effect: "write",
    scopes: ["reports:write"],
    execute: ({ text }: { text: string }) => {
      written.push(text);
      return "saved";
    },
  });
  const after = new Agent({
    tools: [changed],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"], grantedScopes: ["reports:write"] }),
    store,
  });
  const done = await after.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
  assert.equal(done.steps[0]?.outcome, "approval_stale");
  assert.deepEqual(written, []);
});

test("an approver callable answers at once; null pauses the run", async () => {
  const written: string[] = [];
  const granting = new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: writePolicy(),
    approver: (request) => Approval.grant(request.digest, "bot"),
  });
  const done = await granting.run("save the report");
  assert.equal(done.status, "completed");
  assert.deepEqual(written, ["the report"]);
  assert.equal(done.steps[0]?.approval?.approver, "bot");

  const silent = new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: writePolicy(),
    approver: () => null,
  });
  const paused = await silent.run("save the report");
  assert.equal(paused.status, "awaiting_approval");
  assert.deepEqual(written, ["the report"]);
});

test("an approver's answer that mayApprove refuses pauses the run and is audited", async () => {
  const written: string[] = [];
  const agent = new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"], mayApprove: (approver) => approver === "noor" }),
    approver: (request) => Approval.grant(request.digest, "mia"),
  });
  const paused = await agent.run("save the report");
  assert.equal(paused.status, "awaiting_approval");
  assert.deepEqual(written, []);
  const refused = (agent.audit.records ?? []).find(
    (record) =>
      record.event === "approval_answered" && (record.data as { reason?: string }).reason === "approver_not_allowed",
  );
  assert.ok(refused, "the refused answer is in the trail");
});

test("an answer at resume from an approver mayApprove refuses changes nothing (approver_not_allowed)", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"], mayApprove: (approver) => approver === "noor" }),
    store,
  });
  const paused = await agent.run("save the report");
  const before = store.records.length;
  await assert.rejects(
    agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "mia")] }),
    (error) => isLeashError(error, "approver_not_allowed"),
  );
  assert.equal(store.records.length, before);
  assert.equal((await store.load(paused.runId))?.revision, paused.revision);
  const done = await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "noor")] });
  assert.deepEqual(written, ["the report"]);
  assert.equal(done.status, "completed");
});

test("a resume where mayApprove throws for an answer decides nothing (approver_check_failed): a grant beside it never runs", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: new Policy({
      allowEffects: ["read", "write"],
      mayApprove: (approver) => {
        if (approver === "bob") throw new Error("the directory is down");
        return true;
      },
    }),
    store,
  });
  const paused = await agent.run("save the report");
  const digest = paused.pending!.digest;
  const before = store.records.length;
  for (const approvals of [
    [Approval.grant(digest, "allen"), Approval.deny(digest, "bob")],
    [Approval.grant(digest, "bob")],
  ]) {
    await assert.rejects(agent.resume(paused.runId, { approvals }), (error) =>
      isLeashError(error, "approver_check_failed"),
    );
  }
  assert.deepEqual(written, []);
  assert.equal(store.records.length, before);
  assert.equal((await store.load(paused.runId))?.status, "awaiting_approval");
});

test("a resume with no approval that matches the pending request returns the run still paused and writes nothing", async () => {
  const store = new MemoryStore();
  const agent = new Agent({ tools: [saveTool([])], planner: writerPlanner, policy: writePolicy(), store });
  const paused = await agent.run("save the report");
  const before = store.records.length;
  const still = await agent.resume(paused.runId, { approvals: [Approval.grant("0".repeat(64), "allen")] });
  assert.equal(still.status, "awaiting_approval");
  assert.equal(still.revision, paused.revision);
  assert.equal(store.records.length, before);
});

test("resuming a copy older than the stored state is refused (stale_state)", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [saveTool(written)],
    policy: writePolicy(),
    store,
    planner: (state) => {
      if (state.steps.length < 2) return { type: "act", tool: "save", args: { text: `part ${state.steps.length}` } };
      return { type: "finish", answer: "done" };
    },
  });
  const first = await agent.run("save two parts");
  const second = await agent.resume(first.runId, { approvals: [Approval.grant(first.pending!.digest, "allen")] });
  assert.equal(second.status, "awaiting_approval");
  await assert.rejects(agent.resume(first, { approvals: [Approval.grant(first.pending!.digest, "allen")] }), (error) =>
    isLeashError(error, "stale_state"),
  );
  assert.deepEqual(written, ["part 0"]);
});

test("a paused copy resumed twice through a shared trail runs its action once (already_resumed)", async () => {
  const written: string[] = [];
  const audit = new MemoryAuditSink();
  const agent = new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy(), audit });
  const paused = await agent.run("save the report");
  const copy = RunState.fromJSON(JSON.parse(JSON.stringify(paused)));
  const approval = Approval.grant(paused.pending!.digest, "allen");
  const done = await agent.resume(paused, { approvals: [approval] });
  assert.equal(done.status, "completed");
  await assert.rejects(agent.resume(copy, { approvals: [approval] }), (error) =>
    isLeashError(error, "already_resumed"),
  );
  assert.deepEqual(written, ["the report"]);
  assert.deepEqual(verifyAudit(audit.records), []);
});

test("a caller with neither store nor shared sink holds every copy, and replays what it resumes twice", async () => {
  const written: string[] = [];
  const make = () => new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy() });
  const paused = await make().run("save the report");
  const approval = Approval.grant(paused.pending!.digest, "allen");
  await make().resume(paused, { approvals: [approval] });
  await make().resume(paused, { approvals: [approval] });
  assert.deepEqual(written, ["the report", "the report"]);
});

test("a run id already in the store or the audit trail is refused (run_exists)", async () => {
  const store = new MemoryStore();
  const agent = new Agent({ tools: [saveTool([])], planner: writerPlanner, policy: writePolicy(), store });
  await agent.run("save the report", { runId: "report-1" });
  await assert.rejects(agent.run("again", { runId: "report-1" }), (error) => isLeashError(error, "run_exists"));

  const audit = new MemoryAuditSink();
  const first = new Agent({ tools: [saveTool([])], planner: writerPlanner, audit });
  await first.run("one", { runId: "shared-1" });
  const second = new Agent({ tools: [saveTool([])], planner: writerPlanner, audit });
  const before = audit.records.length;
  await assert.rejects(second.run("two", { runId: "shared-1" }), (error) => isLeashError(error, "run_exists"));
  assert.equal(audit.records.length, before);
});

test("an answer recorded in the store by store.answer is acted on by a later resume(runId)", async () => {
  const written: string[] = [];
  const store = new MemoryStore();
  const agent = new Agent({ tools: [saveTool(written)], planner: writerPlanner, policy: writePolicy(), store });
  const paused = await agent.run("save the report");
  await store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen"));
  await assert.rejects(store.answer(paused.runId, Approval.grant("1".repeat(64), "allen")), (error) =>
    isLeashError(error, "stale_state"),
  );
  const done = await agent.resume(paused.runId);
  assert.equal(done.status, "completed");
  assert.deepEqual(written, ["the report"]);
  await assert.rejects(store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen")), (error) =>
    isLeashError(error, "stale_state"),
  );
});

test("approvals for a run that is not awaiting approval are refused (stale_state); an unknown run is run_not_found", async () => {
  const store = new MemoryStore();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => undefined;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const slow = tool({
    name: "slow",
    execute: async () => {
      started();
      return gate.then(() => "ok");
    },
  });
  const agent = new Agent({
    tools: [slow],
    store,
    planner: (state) =>
      state.steps.length === 0 ? { type: "act", tool: "slow", args: {} } : { type: "finish", answer: null },
  });
  const running = agent.run("wait", { runId: "busy" });
  await inFlight;
  await assert.rejects(agent.resume("busy", { approvals: [Approval.grant("2".repeat(64), "allen")] }), (error) =>
    isLeashError(error, "stale_state"),
  );
  release();
  await running;
  await assert.rejects(agent.resume("nobody"), (error) => isLeashError(error, "run_not_found"));
  const storeless = new Agent({ tools: [slow], planner: () => ({ type: "finish", answer: null }) });
  await assert.rejects(storeless.resume("busy"), (error) => isLeashError(error, "run_not_found"));
});
