import assert from "node:assert/strict";
import { eachStore } from "../cli/cli-stores.js";
import { FIRST_CALL, SECOND_CALL, saveGateSession } from "../helpers/gate-session-state.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";

eachStore(
  "the inbox lists a gate session with requests waiting as awaiting a person, and /api/runs does too",
  async (t, target) => {
    await saveGateSession(target.store, "gate-list");
    const paused = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const page = await (
      await fetch(new URL("/?status=awaiting_approval", served.url), { headers: { Cookie: session.cookie } })
    ).text();
    assert.match(page, /<tr data-run-id="gate-list" data-status="running">/);
    assert.match(page, /data-field="gate" data-waiting="2"/);
    assert.match(page, new RegExp(`<tr data-run-id="${paused.runId}"`));

    const api = await fetch(new URL("/api/runs?status=awaiting_approval", served.url), {
      headers: { Cookie: session.cookie },
    });
    assert.equal(api.status, 200);
    const { runs } = (await api.json()) as { runs: { runId: string; gate: boolean; waiting: number }[] };
    assert.deepEqual(
      runs.map((run) => [run.runId, run.gate, run.waiting]).sort(),
      [
        ["gate-list", true, 2],
        [paused.runId, false, 1],
      ].sort(),
    );
  },
);

eachStore(
  "a gate session's page shows every waiting request with its own form, marked as recorded by the app's loop, and each answer goes to its own request",
  async (t, target) => {
    const { waiting, session: gateSession, paid } = await saveGateSession(target.store, "gate-page");
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const read = async (): Promise<string> =>
      (await fetch(new URL("/runs/gate-page", served.url), { headers: { Cookie: session.cookie } })).text();
    const page = await read();
    for (const request of waiting) {
      assert.match(page, new RegExp(`<section data-field="pending" data-digest="${request.digest}"`));
      assert.match(page, new RegExp(`<form id="answer-${request.step}" method="post"`));
      assert.match(page, new RegExp(`name="digest" value="${request.digest}"`));
    }
    assert.equal(page.match(/data-field="recorded-by-loop"/g)?.length, 2);
    assert.match(page, new RegExp(`data-field="call-id">${FIRST_CALL}<`));
    assert.match(page, /data-field="gate"/);

    const second = waiting[1]!;
    const answered = await postAnswer(served, session, "gate-page", {
      _csrf: session.csrf,
      digest: second.digest,
      decision: "approve",
    });
    assert.equal(answered.status, 303);
    const answers = await answersOf(target, "gate-page");
    assert.deepEqual(
      answers.map((answer) => [answer.digest, answer.approver, answer.granted]),
      [[second.digest, "noor", true]],
    );
    const after = await read();
    const sections = after.split('<section data-field="pending"').slice(1);
    const secondSection = sections.find((section) => section.includes(`data-digest="${second.digest}"`)) ?? "";
    const firstSection = sections.find((section) => section.includes(`data-digest="${waiting[0]!.digest}"`)) ?? "";
    assert.match(secondSection, /answered by you: approved/);
    assert.match(firstSection, /<form id="answer-0"/);

    // Through the JSON API, the other request, by its digest, with the bearer token.
    const token = await addApprover(target, "ana");
    const api = await fetch(new URL("/api/runs/gate-page/answer", served.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ digest: waiting[0]!.digest, decision: "deny" }),
    });
    assert.equal(api.status, 200, await api.clone().text());
    assert.deepEqual(
      (await answersOf(target, "gate-page")).map((answer) => [answer.approver, answer.granted]),
      [
        ["noor", true],
        ["ana", false],
      ],
    );
    const ran = await gateSession.call(SECOND_CALL, "pay", { amount: 25 });
    assert.equal(ran.status, "executed");
    assert.deepEqual(paid, [25]);
  },
);
