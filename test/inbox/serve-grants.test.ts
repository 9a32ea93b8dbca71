// Standing grants in the inbox: "approve, and allow N more calls like this for T" on a run's page
// approves this call and gives a grant bound to exactly its arguments, which approves the next such
// call; the grants page lists it, active first, and revokes it under the signed-in name.
import assert from "node:assert/strict";
import { eachStore } from "../cli/cli-stores.js";
import { payAgent } from "../cli/pay-agent.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";

eachStore(
  "approve, and allow N more like this: the answer is recorded, and a grant for exactly these arguments approves the next such call",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const page = await (
      await fetch(new URL(`/runs/${run.runId}`, served.url), { headers: { Cookie: session.cookie } })
    ).text();
    assert.match(page, /data-field="allow-more"/);
    const digest = run.pending?.digest ?? "";

    const bad = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest,
      decision: "approve_and_allow",
      more_uses: "0",
      more_for: "1d",
    });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /more_uses/);
    assert.deepEqual(await answersOf(target, run.runId), [], "a bad form records nothing");
    assert.deepEqual(await target.store.grants!(), []);

    // An edit typed in the same form is neither dropped nor allowed more: nothing is recorded.
    const edited = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest,
      decision: "approve_and_allow",
      args: JSON.stringify({ amount: 1 }),
      more_uses: "2",
      more_for: "2h",
    });
    assert.equal(edited.status, 400);
    assert.match(await edited.text(), /edit/);
    assert.deepEqual(await answersOf(target, run.runId), [], "an edit with allow-more records nothing");
    assert.deepEqual(await target.store.grants!(), []);

    const answered = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest,
      decision: "approve_and_allow",
      more_uses: "2",
      more_for: "2h",
    });
    assert.equal(answered.status, 303, await answered.text());
    const answers = await answersOf(target, run.runId);
    assert.equal(answers.length, 1);
    assert.equal(answers[0]?.approver, "noor");
    assert.equal(answers[0]?.granted, true);
    const [grant] = await target.store.grants!();
    assert.equal(grant?.tool, "pay");
    assert.deepEqual(grant?.args, { const: run.pending?.kind === "call" ? run.pending.args : undefined });
    assert.equal(grant?.maxUses, 2);
    assert.equal(grant?.by, "noor");
    const hours = (Date.parse(grant.expiresAt!) - Date.parse(grant.givenAt)) / 3_600_000;
    assert.ok(hours > 1.99 && hours <= 2, String(hours));
    assert.equal(grant?.uses, 0, "the approved call itself took no use");

    const paid: number[] = [];
    const agent = payAgent(target.store, { onPay: (amount) => paid.push(amount) });
    const same = await agent.run("pay the bill again");
    assert.equal(same.steps[0]?.outcome, "executed", "the same arguments are approved by the grant");
    const other = await payAgent(target.store, { memo: "another memo" }).run("pay with a memo");
    assert.equal(other.status, "awaiting_approval", "other arguments are not");
    assert.deepEqual(paid, [10]);

    const grantsPage = await (
      await fetch(new URL("/grants", served.url), { headers: { Cookie: session.cookie } })
    ).text();
    assert.match(grantsPage, new RegExp(`data-grant-id="${grant.id}"`));
    assert.match(grantsPage, /data-field="left"[^>]*>\s*1 of 2/);
    // The answer spent the session's CSRF token: the grants page's revoke form carries the new one.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(grantsPage)?.[1] ?? "";
    const revoked = await fetch(new URL(`/grants/${grant.id}/revoke`, served.url), {
      method: "POST",
      body: new URLSearchParams({ _csrf: csrf }),
      headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
      redirect: "manual",
    });
    assert.equal(revoked.status, 303);
    const after = (await target.store.grants!())[0];
    assert.equal(after?.revoked?.by, "noor");
    assert.equal((await agent.run("pay once more")).status, "awaiting_approval");
  },
);
