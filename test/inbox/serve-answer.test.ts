import assert from "node:assert/strict";
import { join } from "node:path";
import { root } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";

const pickyAgent = join(root, "test", "fixtures", "inbox", "picky-agent.ts");

eachStore("approving on the run's page records the signed-in name, and the page then says so", async (t, target) => {
  const run = await pausedRun(target);
  const served = await serve(t, target);
  const session = await signIn(served, await addApprover(target, "noor"));
  const page = await (
    await fetch(new URL(`/runs/${run.runId}`, served.url), { headers: { Cookie: session.cookie } })
  ).text();
  const digest = run.pending?.digest ?? "";
  assert.match(page, new RegExp(`<section data-field="pending" data-digest="${digest}"`));
  assert.match(page, /<form id="answer" method="post" action="\/runs\/[^"]+\/answer"/);

  const answered = await postAnswer(served, session, run.runId, {
    _csrf: session.csrf,
    digest,
    decision: "approve",
    note: "fine by me",
    approver: "mallory",
  });
  assert.equal(answered.status, 303);
  const back = answered.headers.get("location") ?? "";
  assert.match(back, new RegExp(`^/runs/${run.runId}`));
  const after = await (await fetch(new URL(back, served.url), { headers: { Cookie: session.cookie } })).text();
  assert.match(after, /role="status"[^>]*>\s*Your approval was recorded/);

  const answers = await answersOf(target, run.runId);
  assert.equal(answers.length, 1);
  assert.equal(answers[0]?.approver, "noor");
  assert.equal(answers[0]?.granted, true);
  assert.equal(answers[0]?.note, "fine by me");
  assert.equal(answers[0]?.digest, digest);
  assert.equal(answers[0]?.origin?.via, "leash-serve");
  assert.equal(answers[0]?.origin?.user, "noor");
});

eachStore(
  "a form POST without the session's CSRF token, or from another origin, is refused and records nothing",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const digest = run.pending?.digest ?? "";
    const attempts: [string, Record<string, string>, Record<string, string>][] = [
      ["no token", { digest, decision: "approve" }, { Origin: served.origin, "Sec-Fetch-Site": "same-origin" }],
      [
        "a wrong token",
        { _csrf: "x".repeat(43), digest, decision: "approve" },
        { Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
      ],
      ["another origin", { _csrf: session.csrf, digest, decision: "approve" }, { Origin: "http://evil.example" }],
      ["a null origin", { _csrf: session.csrf, digest, decision: "approve" }, { Origin: "null" }],
    ];
    for (const [label, fields, headers] of attempts) {
      const response = await postAnswer(served, session, run.runId, fields, headers);
      assert.equal(response.status, 403, label);
      const text = await response.text();
      assert.match(text, /role="alert"/, label);
      assert.match(text, /csrf_refused/, label);
    }
    const json = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
      method: "POST",
      headers: { Cookie: session.cookie, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin" },
      body: JSON.stringify({ digest, decision: "approve" }),
    });
    assert.equal(json.status, 403);
    assert.equal(((await json.json()) as { error: { code: string } }).error.code, "csrf_refused");
    assert.deepEqual(await answersOf(target, run.runId), []);

    // The same session, with its token (a header for JSON), is let through.
    const withHeader = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
      method: "POST",
      headers: {
        Cookie: session.cookie,
        "Content-Type": "application/json",
        "X-CSRF-Token": session.csrf,
        "Sec-Fetch-Site": "same-origin",
      },
      body: JSON.stringify({ digest, decision: "deny", note: "no" }),
    });
    assert.equal(withHeader.status, 200);
    assert.equal((await answersOf(target, run.runId))[0]?.granted, false);
  },
);

eachStore("a Bearer API approval records the signed-in name and ignores an approver in the body", async (t, target) => {
  const run = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const listed = (await (
    await fetch(new URL("/api/runs?status=awaiting_approval", served.url), {
      headers: { Authorization: `Bearer ${token}` },
    })
  ).json()) as { runs: { runId: string }[]; page: number; next: string | null };
  assert.deepEqual(
    listed.runs.map((item) => item.runId),
    [run.runId],
  );
  assert.equal(listed.page, 1);
  assert.equal(listed.next, null);
  const shown = (await (
    await fetch(new URL(`/api/runs/${run.runId}`, served.url), { headers: { Authorization: `Bearer ${token}` } })
  ).json()) as { run: { pending: { digest: string } }; chain: { ok: boolean; problems: unknown[] } };
  assert.equal(shown.chain.ok, true);
  assert.deepEqual(shown.chain.problems, []);

  const response = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ digest: shown.run.pending.digest, decision: "approve", note: "ok", approver: "mallory" }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { run: { runId: string; answers: { approver: string }[] } };
  assert.equal(body.run.runId, run.runId);
  assert.equal(body.run.answers[0]?.approver, "noor");
  const answers = await answersOf(target, run.runId);
  assert.equal(answers.length, 1);
  assert.equal(answers[0]?.approver, "noor");
  assert.deepEqual(answers[0]?.origin?.via, "leash-serve");
});

eachStore(
  "an answer to a request that changed is refused with 409 stale_state and nothing is recorded",
  async (t, target) => {
    const run = await pausedRun(target);
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const session = await signIn(served, token);
    const stale = "0".repeat(64);
    const page = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest: stale,
      decision: "approve",
    });
    assert.equal(page.status, 409);
    const text = await page.text();
    assert.match(text, /<div role="alert"[^>]*>[\s\S]*changed[\s\S]*stale_state/);
    const api = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ digest: stale, decision: "approve" }),
    });
    assert.equal(api.status, 409);
    const body = (await api.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "stale_state");
    assert.deepEqual(await answersOf(target, run.runId), []);

    const missing = await fetch(new URL("/api/runs/no-such-run/answer", served.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ digest: stale, decision: "approve" }),
    });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "run_not_found");
  },
);

eachStore(
  "with --agent, an approver the policy's mayApprove refuses gets 403 and nothing is recorded",
  async (t, target) => {
    const run = await pausedRun(target);
    const mallory = await addApprover(target, "mallory");
    const noor = await addApprover(target, "noor");
    const served = await serve(t, target, ["--agent", pickyAgent]);
    const digest = run.pending?.digest ?? "";
    const session = await signIn(served, mallory);
    const page = await postAnswer(served, session, run.runId, { _csrf: session.csrf, digest, decision: "approve" });
    assert.equal(page.status, 403);
    assert.match(await page.text(), /role="alert"[\s\S]*approver_not_allowed/);
    const api = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${mallory}`, "Content-Type": "application/json" },
      body: JSON.stringify({ digest, decision: "deny" }),
    });
    assert.equal(api.status, 403);
    assert.deepEqual(await answersOf(target, run.runId), []);

    const allowed = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${noor}`, "Content-Type": "application/json" },
      body: JSON.stringify({ digest, decision: "approve" }),
    });
    assert.equal(allowed.status, 200);
    assert.equal((await answersOf(target, run.runId))[0]?.approver, "noor");
  },
);
