import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, Policy, RunState, tool } from "../../src/index.js";
import type { StandardTypedSchema } from "../../src/index.js";

test("a grant kept on a step that names an approver the policy refuses authorises nothing at recovery", async () => {
  const paid: unknown[] = [];
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: { amount: { type: "number" } } },
    execute: (args) => paid.push(args),
  });
  const policy = new Policy({ allowEffects: ["read", "write"], mayApprove: (approver) => approver === "alice" });
  const planner = (state: RunState) =>
    state.steps.length === 0 ? Decision.act("pay", { amount: 5 }) : Decision.finish("done");
  const paused = await new Agent({ tools: [pay], policy, planner }).run("pay");
  assert.equal(paused.status, "awaiting_approval");
  const json = paused.toJSON();
  const digest = json.pending?.digest ?? "";
  // A saved state edited by hand: running, as after a crash, with a grant nobody the policy allows gave.
  json.status = "running";
  delete json.pending;
  delete json.pendingHistory;
  json.steps[0]!.approval = { digest, granted: true, approver: "mallory" };
  const resumed = await new Agent({ tools: [pay], policy, planner }).resume(RunState.fromJSON(json));
  assert.deepEqual(paid, []);
  assert.equal(resumed.steps[0]?.outcome, "approval_denied");
});

test("a typed schema's check that never settles does not keep a cancel from ending the run", async () => {
  let entered: () => void = () => undefined;
  const inCheck = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const never: StandardTypedSchema<{ q: string }> = {
    "~standard": {
      version: 1,
      vendor: "test",
      jsonSchema: { input: () => ({ type: "object", properties: { q: { type: "string" } } }) },
      validate: () => {
        entered();
        return new Promise(() => undefined);
      },
    },
  };
  const ran: unknown[] = [];
  const look = tool({ name: "look", parameters: never, execute: (args) => ran.push(args) });
  const agent = new Agent({ tools: [look], planner: () => Decision.act("look", { q: "x" }) });
  const running = agent.run("look", { runId: "stuck" });
  await inCheck;
  await agent.cancel("stuck");
  const state = await running;
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.deepEqual(ran, []);
});
