// A case of the shared adapter suite: the model proposes a write, the run pauses, and Noor approves
// it with other arguments. The edited call runs once, and the next request tells the model, in the
// tool result of its own call id, that a person changed the arguments and to what.
import assert from "node:assert/strict";
import { Approval, MemoryStore, stateAgreesWithTrail } from "../../../src/index.js";
import type { CaseContext } from "./suite-context.js";
import { call, outcomesOf } from "./suite-context.js";
import { SUITE_APPROVER, suiteAgent } from "./suite-agent.js";

export async function editCase({ server, client, reads }: CaseContext): Promise<void> {
  server.reply({
    type: "answer",
    text: "Saving it.",
    calls: [call("call_s", "save", { text: "T-7: new pads" })],
    usage: { input: 100, output: 20 },
  });
  const store = new MemoryStore();
  const calls: string[] = [];
  const agent = suiteAgent({ model: client(), store, approvalFor: ["write"], calls });
  const paused = await agent.run("Note the fix for T-7.");
  assert.equal(paused.status, "awaiting_approval", JSON.stringify(paused.failure));
  server.reply({ type: "answer", text: "Saved.", usage: { input: 150, output: 5 } });
  const edited = { text: "T-7: new rear pads, cable checked" };
  const done = await agent.resume(paused.runId, {
    approvals: [Approval.edit(paused.pending!.digest, SUITE_APPROVER, edited, "more precise")],
  });
  assert.equal(done.status, "completed", JSON.stringify(done.failure));
  assert.deepEqual(outcomesOf(done), ["executed", "finished"]);
  assert.deepEqual(calls, ["save T-7: new rear pads, cable checked"]);
  assert.deepEqual(done.steps[0]?.edited, { args: edited, by: SUITE_APPROVER });
  const read = reads();
  assert.equal(read.length, 2);
  const told = read[1]!.results.find((result) => result.callId === "call_s")?.content ?? "";
  assert.match(told, /changed the arguments/);
  assert.match(told, /cable checked/);
  assert.match(told, new RegExp(SUITE_APPROVER));
  assert.deepEqual(stateAgreesWithTrail(done, await store.read(done.runId)).problems, []);
}
