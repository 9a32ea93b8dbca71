import assert from "node:assert/strict";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";

eachStore(
  "the answer form's edit field records an approval with edited arguments; bad JSON or arguments the tool's schema refuses are a 400 naming the problem and record nothing",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const page = await (
      await fetch(new URL(`/runs/${run.runId}`, served.url), { headers: { Cookie: session.cookie } })
    ).text();
    assert.match(page, /<textarea id="args" name="args"[^>]*data-field="edit-args"/);
    assert.match(page, /Edit the arguments/);
    const digest = run.pending?.digest ?? "";

    for (const bad of ["{nope", "[1]", '{"amount": "seven"}', '{"memo": "no amount"}']) {
      const refused = await postAnswer(served, session, run.runId, {
        _csrf: session.csrf,
        digest,
        decision: "approve",
        args: bad,
      });
      assert.equal(refused.status, 400, bad);
      assert.match(await refused.text(), /invalid_arguments/, bad);
    }
    assert.deepEqual(await answersOf(target, run.runId), []);

    const answered = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest,
      decision: "approve",
      args: '{"amount": 7}',
    });
    assert.equal(answered.status, 303);
    const answers = await answersOf(target, run.runId);
    assert.equal(answers.length, 1);
    assert.deepEqual(answers[0]?.args, { amount: 7 });
    assert.equal(answers[0]?.approver, "noor");
  },
);
