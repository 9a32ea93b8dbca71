import { test } from "node:test";
import assert from "node:assert/strict";
import { Approval, isLeashError, trace, verifyAudit } from "../../src/index.js";
import type { Guard, GuardedWork } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { MIA, NOOR, estimateRepair, repairArgs, shopRules, workshop } from "./workshop.js";

test("every guard point is told the agent, the skill, the task and the person", async () => {
  const seen: [string, GuardedWork][] = [];
  const watcher: Guard = {
    name: "Watcher",
    beforeModel: (work) => (seen.push(["beforeModel", work]), { type: "allow" }),
    afterModel: (work) => (seen.push(["afterModel", work]), { type: "allow" }),
    beforeTool: (work) => (seen.push(["beforeTool", work]), { type: "allow" }),
    afterTool: (work) => (seen.push(["afterTool", work]), { type: "allow" }),
  };
  const { estimator, repair, stub } = workshop({ guards: [watcher, shopRules] });
  const script = scriptedModel(
    says.tool("NoteRepair", repairArgs(repair, { note: "Worn pads." })),
    says.handBack({ hours: 1 }),
  );
  stub((request, options) => script.generate(request, options));
  const outcome = await estimator.do(estimateRepair, repair, { principal: MIA });
  assert.equal(outcome.done, true);
  assert.deepEqual(
    seen.map(([point]) => point),
    ["beforeModel", "afterModel", "beforeTool", "afterTool", "beforeModel", "afterModel"],
  );
  for (const [, work] of seen)
    assert.deepEqual(work, { agent: "Estimator", skill: "EstimateRepair", task: outcome.task, person: MIA });
});

test("model calls are charged at the model's price, and the budget stops the work before the next call", async () => {
  const { estimator, repair, store, stub } = workshop();
  // 10,000 in at 1 and 8,000 out at 5 per million tokens: 0.05, the whole budget.
  const script = scriptedModel(
    says.tool("WhereIsTheKey", repairArgs(repair), { usage: { inputTokens: 10_000, outputTokens: 8_000 } }),
    says.handBack({ hours: 1 }),
  );
  stub((request, options) => script.generate(request, options));
  const failures: unknown[] = [];
  estimator.on("run_failed", (event) => failures.push(event));

  const outcome = await estimator.do(estimateRepair, repair, { principal: MIA });

  assert.equal(outcome.status, "stopped");
  assert.equal(outcome.state.stopReason, "max_cost");
  assert.equal(outcome.state.usage.tokens, 18_000);
  assert.ok(Math.abs(outcome.state.usage.cost - 0.05) < 1e-12);
  // The second model call was never made, and stopped work is not tried again.
  assert.equal(script.requests.length, 1);
  assert.equal(outcome.attempt, 1);
  assert.deepEqual(failures, []);
  const called = (await store.read(outcome.task)).filter((record) => record.event === "model_called");
  assert.equal(called.length, 1);
  const data = called[0]?.data as {
    model: string;
    usage: { inputTokens: number; outputTokens: number; tokens: number };
    requestDigest: string;
    responseDigest: string;
  };
  assert.equal(data.model, "Everyday");
  assert.deepEqual([data.usage.inputTokens, data.usage.outputTokens, data.usage.tokens], [10_000, 8_000, 18_000]);
  assert.match(data.requestDigest, /^[0-9a-f]{64}$/);
  assert.match(data.responseDigest, /^[0-9a-f]{64}$/);
  assert.equal("request" in data, false);
});

test("an approval from someone mayApprove refuses changes nothing; the manager's runs the call", async () => {
  const asked: string[] = [];
  const { estimator, repair, repairs, store, stub } = workshop({
    approvalFor: ["write"],
    // Mia answers at once, but only Noor may approve: the run pauses instead.
    approver: (request) => (asked.push(request.tool), Approval.grant(request.digest, MIA)),
  });
  const script = scriptedModel(
    says.tool("NoteRepair", repairArgs(repair, { note: "Worn pads." })),
    says.handBack({ hours: 1, summary: "Pads." }),
  );
  stub((request, options) => script.generate(request, options));

  const paused = await estimator.do(estimateRepair, repair, { principal: MIA });
  assert.equal(paused.status, "awaiting_approval");
  assert.equal(paused.done, false);
  assert.deepEqual(asked, ["NoteRepair"]);
  assert.equal(repairs.get(repair.id)?.note, "");
  const refused = (await store.read(paused.task)).filter((record) => record.event === "approval_answered");
  assert.equal((refused[0]?.data as { reason?: string }).reason, "approver_not_allowed");
  const digest = paused.state.pending?.digest ?? "";

  await assert.rejects(estimator.resume(paused.task, { approvals: [Approval.grant(digest, MIA)] }), (error) =>
    isLeashError(error, "approver_not_allowed"),
  );
  assert.equal((await store.load(paused.task))?.status, "awaiting_approval");
  assert.equal(repairs.get(repair.id)?.note, "");

  const resumed = await estimator.resume(paused.task, { approvals: [Approval.grant(digest, NOOR)] });
  assert.equal(resumed.status, "completed");
  assert.equal(resumed.skill, "EstimateRepair");
  assert.deepEqual(resumed.answer, { hours: 1, summary: "Pads." });
  assert.equal(repairs.get(repair.id)?.note, "Worn pads.");
  assert.deepEqual(trace(resumed).ran, ["NoteRepair"]);
  script.assertDone();
  assert.deepEqual(verifyAudit(store.records), []);
});
