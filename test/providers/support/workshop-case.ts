// Case 1 of the shared adapter suite: the second seed's workshop run end to end through a real SDK.
// The model asks where the key is (the shop's guard withholds the answer), notes the repair, hands
// back an estimate of no time (refused by the skill's check, on the hand-back call's id), then hands
// back a good one.
import assert from "node:assert/strict";
import { MemoryStore, verifyAudit } from "../../../src/index.js";
import {
  ESTIMATOR_PURPOSE,
  createEstimator,
  estimateRepair,
  repairT7,
  workshopTools,
} from "../../../src/cli/demo/workshop.js";
import type { Repair } from "../../../src/cli/demo/workshop.js";
import type { AuditRecord } from "../../../src/index.js";
import type { CaseContext } from "./suite-context.js";
import { call, parsedArguments, outcomesOf } from "./suite-context.js";
import { answeredIds } from "./read-request.js";

/** The hand-back tool's name when no app tool takes it (src/providers/common/hand-back-tool.ts). */
const HAND_BACK = "hand_back";
const NOTE = "Rear pads worn to the metal; cable stretched.";
const ESTIMATE = { hours: 1.5, summary: "New rear pads and a cable." };

export async function workshopCase({ server, client, reads }: CaseContext): Promise<void> {
  const repair = repairT7();
  const repairs = new Map<string, Repair>([[repair.id, repair]]);
  const store = new MemoryStore();
  const estimator = createEstimator({ store, model: client(), tools: workshopTools(repairs) });
  const live: AuditRecord[] = [];
  estimator.on("record", (record) => live.push(record));
  server.reply(
    {
      type: "answer",
      calls: [call("call_key", "WhereIsTheKey", { repair: repair.id })],
      usage: { input: 120, output: 20 },
    },
    { type: "answer", calls: [call("call_note", "NoteRepair", { repair: repair.id, note: NOTE })] },
    { type: "answer", text: "Done, I think.", calls: [call("call_hand_1", HAND_BACK, { hours: 0 })] },
    { type: "answer", calls: [call("call_hand_2", HAND_BACK, ESTIMATE)] },
  );

  const outcome = await estimator.do(estimateRepair, repair, { principal: "mia" });

  assert.equal(outcome.status, "completed", JSON.stringify(outcome.state.failure));
  assert.equal(outcome.done, true);
  assert.deepEqual(outcome.output, ESTIMATE);
  assert.deepEqual(outcomesOf(outcome.state), ["withheld", "executed", "answer_rejected", "finished"]);
  assert.equal(repairs.get(repair.id)?.note, NOTE);
  assert.deepEqual(verifyAudit(store.records), []);
  assert.deepEqual(live, store.records, "the live feed gave every record the trail holds, as it was made");

  const read = reads();
  assert.equal(read.length, 4, "one request per answer of the model");
  for (const request of read) {
    assert.ok(request.system.includes(ESTIMATOR_PURPOSE), `the purpose is the system prompt: ${request.system}`);
    assert.ok(request.userTexts[0]?.includes("Ticket T-7"), "the skill's brief is the first user message");
    assert.deepEqual([...request.tools].sort(), ["NoteRepair", "WhereIsTheKey", HAND_BACK].sort());
  }
  // The guard kept the key's place from the model: the next request says why, never where.
  for (const body of server.requests) assert.ok(!JSON.stringify(body).includes("under the saddle"));
  assert.deepEqual(parsedArguments(read[1]!), [{ id: "call_key", tool: "WhereIsTheKey", args: { repair: repair.id } }]);
  assert.equal(read[1]!.results.length, 1);
  assert.equal(read[1]!.results[0]?.callId, "call_key");
  assert.match(read[1]!.results[0]?.content ?? "", /Where a key is kept stays in the workshop\./);
  // Every call id is answered, in order, before the model is asked again.
  assert.deepEqual(answeredIds(read[3]), ["call_key", "call_note", "call_hand_1"]);
  assert.deepEqual(
    read[3]!.calls.map((replayed) => replayed.id),
    ["call_key", "call_note", "call_hand_1"],
  );
  // The refused hand-back is answered on its own call id, with the skill's reason.
  assert.match(read[3]!.results[2]?.content ?? "", /An estimate takes some time\./);
  assert.deepEqual(JSON.parse(read[3]!.calls[2]?.arguments ?? "null"), { hours: 0 });
}
