// Cases 3 and 4 of the shared adapter suite: calls the model gets wrong become refused steps the
// model sees on their call ids, and the run goes on. Malformed argument text goes back verbatim.
import assert from "node:assert/strict";
import { verifyAudit } from "../../../src/index.js";
import type { CaseContext } from "./suite-context.js";
import { call, outcomesOf } from "./suite-context.js";
import { suiteAgent } from "./suite-agent.js";
import { answeredIds } from "./read-request.js";

/** Argument text that is not JSON: an object the model never closed. */
export const MALFORMED = '{"topic": "brakes"';

export async function malformedArgumentsCase({ harness, server, client, reads }: CaseContext): Promise<void> {
  const ran: string[] = [];
  const agent = suiteAgent({ model: client(), calls: ran });
  server.reply(
    { type: "answer", calls: [{ id: "call_bad", tool: "lookup", arguments: MALFORMED }] },
    { type: "answer", calls: [call("call_good", "lookup", { topic: "brakes" })] },
    { type: "answer", text: "New pads." },
  );

  const state = await agent.run("Why does the rear brake not bite?");

  assert.equal(state.status, "completed", JSON.stringify(state.failure));
  assert.deepEqual(outcomesOf(state), ["invalid_arguments", "executed", "finished"]);
  assert.equal(state.steps[0]?.error?.code, "invalid_json");
  assert.equal(state.answer, "New pads.");
  assert.deepEqual(ran, ["lookup brakes"], "the malformed call never ran");
  const read = reads();
  assert.equal(read.length, 3);
  // The model's own text goes back, byte for byte, and its call id is answered with the refusal.
  const verbatim = harness.verbatimArguments !== false;
  assert.deepEqual(
    read[1]!.calls.map((replayed) => ({ ...replayed, arguments: verbatim ? replayed.arguments : MALFORMED })),
    [{ id: "call_bad", tool: "lookup", arguments: MALFORMED }],
  );
  assert.deepEqual(answeredIds(read[1]), ["call_bad"]);
  assert.notEqual(read[1]!.results[0]?.content ?? "", "", "the refusal says why");
  if (verbatim) assert.equal(read[2]!.calls[0]?.arguments, MALFORMED, "still verbatim a turn later");
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
}

export async function unknownToolCase({ server, client, reads }: CaseContext): Promise<void> {
  const ran: string[] = [];
  const agent = suiteAgent({ model: client(), calls: ran });
  server.reply(
    { type: "answer", calls: [call("call_ghost", "teleport", { to: "the shop" })] },
    { type: "answer", text: "There is no such tool; the pads need changing." },
  );

  const state = await agent.run("Fix the brake at once.");

  assert.equal(state.status, "completed", JSON.stringify(state.failure));
  assert.deepEqual(outcomesOf(state), ["unknown_tool", "finished"]);
  assert.deepEqual(ran, []);
  const read = reads();
  assert.equal(read.length, 2);
  assert.deepEqual(
    read[1]!.calls.map((replayed) => [replayed.id, replayed.tool]),
    [["call_ghost", "teleport"]],
  );
  assert.deepEqual(answeredIds(read[1]), ["call_ghost"]);
  assert.match(read[1]!.results[0]?.content ?? "", /teleport/);
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
}
