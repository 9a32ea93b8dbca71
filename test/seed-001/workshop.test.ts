import { test } from "node:test";
import assert from "node:assert/strict";
import { trace, verifyAudit } from "../../src/index.js";
import type { GaveUpEvent } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { MIA, estimateRepair, repairArgs, workshop } from "./workshop.js";

test("a guard stops a tool and keeps an answer from the model", async () => {
  const { estimator, repair, repairs, store, stub } = workshop();
  const script = scriptedModel(
    says.tool("NoteRepair", repairArgs(repair, { note: "Worn pads: the customer's fault." })),
    says.tool("WhereIsTheKey", repairArgs(repair)),
    says.tool("NoteRepair", repairArgs(repair, { note: "Worn pads." })),
    says.handBack({ hours: 1, summary: "Pads." }),
  );
  stub((request, options) => script.generate(request, options));

  const outcome = await estimator.do(estimateRepair, repair, { principal: MIA });

  assert.equal(outcome.done, true);
  assert.deepEqual(outcome.output, { hours: 1, summary: "Pads." });
  // The first note was never written; the one that blames nobody was.
  assert.equal(repairs.get(repair.id)?.note, "Worn pads.");
  // Both blocks are lines of the record, each naming the guard and its reason.
  const { said, ran } = trace(outcome.state);
  assert.ok(said.includes("Shop rules stopped NoteRepair: A note does not blame the customer."), said.join("\n"));
  assert.ok(
    said.includes(
      "Shop rules kept what WhereIsTheKey answered from the model: Where a key is kept stays in the workshop.",
    ),
    said.join("\n"),
  );
  // The tool that ran is counted as run; the one that was stopped is not.
  assert.deepEqual(ran, ["WhereIsTheKey", "NoteRepair"]);
  // The trace is read from the state alone: the saved copy tells the same.
  const saved = await store.load(outcome.task);
  assert.ok(saved !== null);
  assert.deepEqual(trace(saved), { said, ran });
  assert.deepEqual(
    outcome.state.steps.map((step) => step.outcome),
    ["blocked", "withheld", "executed", "finished"],
  );
  assert.equal(outcome.state.toolCalls, 2);
  // Where the key is kept went neither to the model nor into the saved state; the model was told
  // why the answer was kept, not what it was.
  script.assertDone();
  assert.equal(script.requests.length, 4);
  for (const request of script.requests) assert.ok(!JSON.stringify(request).includes("under the saddle"));
  assert.ok(!JSON.stringify(outcome.state.toJSON()).includes("under the saddle"));
  const told =
    script.requests[2]?.messages
      .map((message) => (message.role === "tool" ? `${message.outcome}: ${JSON.stringify(message.content)}` : ""))
      .join("\n") ?? "";
  assert.match(told, /withheld/);
  assert.match(told, /Where a key is kept stays in the workshop\./);
  assert.deepEqual(verifyAudit(estimator.audit.records as never), []);
});

test("failed work is tried again and gives up once", async () => {
  const { estimator, repair, store, stub } = workshop();
  const tasks = (): number => store.records.filter((record) => record.event === "run_started").length;
  const heard: string[] = [];
  const gaveUp: GaveUpEvent[] = [];
  estimator.on("gave_up", (event) => {
    gaveUp.push(event);
    heard.push(`${event.attempts} attempts`);
  });
  const failedAttempts: number[] = [];
  estimator.on("run_failed", (event) => failedAttempts.push(event.attempt));
  // An estimate of no time at all is refused, again and again: the attempt fails. The second attempt gets it right.
  const bad = scriptedModel(says.handBack({ hours: 0 }), says.handBack({ hours: 0 }), says.handBack({ hours: 0 }));
  const good = scriptedModel(says.handBack({ hours: 1, summary: "An hour." }));
  stub((request, options) => (tasks() >= 2 ? good : bad).generate(request, options));

  const outcome = await estimator.do(estimateRepair, repair, { principal: MIA });

  assert.equal(outcome.done, true);
  assert.deepEqual(outcome.output, { hours: 1, summary: "An hour." });
  const second = (await store.list()).find((state) => state.attempt === 2);
  assert.ok(second !== undefined);
  assert.equal(outcome.task, second.runId);
  assert.equal(outcome.attempt, 2);
  assert.ok(second.retryOf !== undefined);
  const first = await store.load(second.retryOf);
  assert.equal(first?.status, "failed");
  assert.equal(first?.failure?.code, "answer_rejected");
  assert.equal(first?.rejections, 3);
  assert.deepEqual(failedAttempts, [1]);
  assert.equal(gaveUp.length, 0);
  bad.assertDone();
  good.assertDone();

  // Work whose every attempt fails gives up once, after the last.
  const worse = scriptedModel(...Array.from({ length: 6 }, () => says.handBack({ hours: 0 })));
  stub((request, options) => worse.generate(request, options));
  const failed = await estimator.do(estimateRepair, repair, { principal: MIA });
  assert.equal(failed.status, "failed");
  assert.equal(failed.done, false);
  assert.equal(failed.attempt, 2);
  assert.equal(failed.state.failure?.code, "answer_rejected");
  worse.assertDone();
  assert.deepEqual(heard, ["2 attempts"]);
  assert.equal(gaveUp[0]?.task, failed.task);
  assert.deepEqual(failedAttempts, [1, 1, 2]);
  const gaveUpRecords = (await store.read(failed.task)).filter((record) => record.event === "gave_up");
  assert.equal(gaveUpRecords.length, 1);
  assert.equal((gaveUpRecords[0]?.data as { attempts?: number }).attempts, 2);
  assert.deepEqual(verifyAudit(store.records), []);
});
