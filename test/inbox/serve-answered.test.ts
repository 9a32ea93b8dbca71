// The inbox after an answer: the page says who answered what and that the app has yet to act, offers
// no buttons to whoever answered, takes the same answer again as harmless, refuses a changed one, and
// says plainly when an approval comes while a denial already stands.
import assert from "node:assert/strict";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";
import type { Served, SignedIn } from "./serve-helpers.js";

interface ApiAnswer {
  status: number;
  body: { run?: { status: string }; recorded?: boolean; notice?: string; error?: { code: string; message: string } };
}

async function apiAnswer(served: Served, token: string, runId: string, fields: object): Promise<ApiAnswer> {
  const response = await fetch(new URL(`/api/runs/${encodeURIComponent(runId)}/answer`, served.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(fields),
  });
  return { status: response.status, body: (await response.json()) as ApiAnswer["body"] };
}

async function runPageOf(served: Served, runId: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(new URL(`/runs/${encodeURIComponent(runId)}`, served.url), { headers });
  assert.equal(response.status, 200);
  return response.text();
}

/** The session's current CSRF token, as the page's header form carries it (it changes after each answer). */
async function freshCsrf(served: Served, session: SignedIn): Promise<SignedIn> {
  const page = await (await fetch(served.url, { headers: { Cookie: session.cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(csrf !== undefined);
  return { cookie: session.cookie, csrf };
}

/** The page's text without tags and with runs of space made one. */
function textOf(page: string): string {
  return page
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .replace(/ ([,.:)])/g, "$1")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

eachStore(
  "after an approval the page says answered by you, waiting for the app to act, and offers no buttons",
  async (t, target) => {
    const run = await pausedRun(target);
    const noorToken = await addApprover(target, "noor");
    const miaToken = await addApprover(target, "mia");
    const served = await serve(t, target);
    const noor = await signIn(served, noorToken);
    const digest = run.pending?.digest ?? "";

    const answered = await postAnswer(served, noor, run.runId, { _csrf: noor.csrf, digest, decision: "approve" });
    assert.equal(answered.status, 303);
    const page = await runPageOf(served, run.runId, { Cookie: noor.cookie });
    assert.match(textOf(page), /answered by you: approved, waiting for the app to act/);
    assert.doesNotMatch(page, /<form id="answer"/);
    assert.doesNotMatch(page, /name="decision"/);
    // Still the request's page (the live script keys on it), and the run still waits for the app.
    assert.match(page, new RegExp(`<section data-field="pending" data-digest="${digest}"`));
    assert.equal((await target.store.load(run.runId))?.status, "awaiting_approval");

    // A script of the same approver, signed in with the token, reads the same.
    assert.match(
      textOf(await runPageOf(served, run.runId, { Authorization: `Bearer ${noorToken}` })),
      /answered by you: approved, waiting for the app to act/,
    );
    // Another approver sees whose answer it is, and may still answer.
    const miaPage = await runPageOf(served, run.runId, { Cookie: (await signIn(served, miaToken)).cookie });
    assert.match(textOf(miaPage), /answered by noor: approved/);
    assert.doesNotMatch(textOf(miaPage), /answered by you/);
    assert.match(miaPage, /<form id="answer"/);
  },
);

eachStore("the same answer given twice is recorded once, on the form and the JSON API alike", async (t, target) => {
  const run = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const digest = run.pending?.digest ?? "";

  const first = await apiAnswer(served, token, run.runId, { digest, decision: "deny", note: "not this month" });
  assert.equal(first.status, 200);
  assert.equal(first.body.recorded, true);
  const again = await apiAnswer(served, token, run.runId, { digest, decision: "deny", note: "still no" });
  assert.equal(again.status, 200);
  assert.equal(again.body.recorded, false);
  assert.match(again.body.notice ?? "", /recorded already; nothing changed/);
  assert.equal(again.body.run?.status, "awaiting_approval");

  const session = await freshCsrf(served, await signIn(served, token));
  const form = await postAnswer(served, session, run.runId, { _csrf: session.csrf, digest, decision: "deny" });
  assert.equal(form.status, 303);
  const page = await runPageOf(served, run.runId, { Cookie: session.cookie });
  assert.match(textOf(page), /Your denial of this request was recorded already; nothing changed\./);
  assert.match(textOf(page), /answered by you: denied, waiting for the app to act/);

  const answers = await answersOf(target, run.runId);
  assert.deepEqual(
    answers.map((answer) => [answer.approver, answer.granted, answer.note]),
    [["noor", false, "not this month"]],
  );
});

eachStore("a different answer from the same approver is refused with 409 and records nothing", async (t, target) => {
  const run = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const digest = run.pending?.digest ?? "";
  for (const [first, second, stands] of [
    ["deny", "approve", /You denied this request already.*your denial stands/],
    ["approve", "deny", /You approved this request already.*your approval stands/],
  ] as const) {
    const target2 = first === "deny" ? run : await pausedRun(target, "pay the next bill");
    const pinned = target2.pending?.digest ?? digest;
    assert.equal((await apiAnswer(served, token, target2.runId, { digest: pinned, decision: first })).status, 200);
    const changed = await apiAnswer(served, token, target2.runId, { digest: pinned, decision: second });
    assert.equal(changed.status, 409);
    assert.equal(changed.body.error?.code, "stale_state");
    assert.match(changed.body.error?.message ?? "", stands);
    assert.equal((await answersOf(target, target2.runId)).length, 1);

    const session = await freshCsrf(served, await signIn(served, token));
    const form = await postAnswer(served, session, target2.runId, {
      _csrf: session.csrf,
      digest: pinned,
      decision: second,
    });
    assert.equal(form.status, 409);
    assert.match(textOf(await form.text()), stands);
    assert.equal((await answersOf(target, target2.runId)).length, 1);
  }
});

eachStore(
  "an approval given while another's denial stands is recorded with a note that it stands",
  async (t, target) => {
    const run = await pausedRun(target);
    const noorToken = await addApprover(target, "noor");
    const miaToken = await addApprover(target, "mia");
    const served = await serve(t, target);
    const digest = run.pending?.digest ?? "";
    assert.equal((await apiAnswer(served, noorToken, run.runId, { digest, decision: "deny" })).status, 200);

    // Before answering, Mia reads that a denial stands, beside the buttons she is still offered.
    const mia = await signIn(served, miaToken);
    const before = await runPageOf(served, run.runId, { Cookie: mia.cookie });
    assert.match(textOf(before), /A denial already stands \(denied by noor\)/);
    assert.match(textOf(before), /answered by noor: denied/);
    assert.match(before, /<form id="answer"/);

    const form = await postAnswer(served, mia, run.runId, { _csrf: mia.csrf, digest, decision: "approve" });
    assert.equal(form.status, 303);
    const after = textOf(await runPageOf(served, run.runId, { Cookie: mia.cookie }));
    assert.match(after, /Your approval was recorded, but a denial already stands \(denied by noor\)/);
    assert.match(after, /answered by you: approved, waiting for the app to act/);
    assert.match(after, /answered by noor: denied/);

    // The same through the JSON API, for a third approver.
    const sam = await apiAnswer(served, await addApprover(target, "sam"), run.runId, { digest, decision: "approve" });
    assert.equal(sam.status, 200);
    assert.equal(sam.body.recorded, true);
    assert.match(sam.body.notice ?? "", /a denial already stands \(denied by noor\)/);
    assert.deepEqual(
      (await answersOf(target, run.runId)).map((answer) => [answer.approver, answer.granted]),
      [
        ["noor", false],
        ["mia", true],
        ["sam", true],
      ],
    );
    assert.equal((await target.store.load(run.runId))?.status, "awaiting_approval");
  },
);

eachStore(
  "two different answers from one approver posted at once: one is recorded, the other refused",
  async (t, target) => {
    const run = await pausedRun(target);
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const digest = run.pending?.digest ?? "";
    const results = await Promise.all(
      ["approve", "deny", "approve", "deny"].map((decision) =>
        apiAnswer(served, token, run.runId, { digest, decision }),
      ),
    );
    const recorded = results.filter((result) => result.body.recorded === true);
    assert.equal(recorded.length, 1);
    const answers = await answersOf(target, run.runId);
    assert.equal(answers.length, 1);
    for (const result of results) {
      if (result.body.recorded === true) continue;
      const same = result.status === 200;
      assert.ok(same || result.status === 409, `status ${result.status}`);
    }
  },
);

eachStore(
  "an answer typed at a terminal under an approver's name is not taken for theirs in the inbox",
  async (t, target) => {
    const run = await pausedRun(target);
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const digest = run.pending?.digest ?? "";
    const typed = leash(["deny", run.runId, "--as", "noor", "--digest", digest, ...target.args], { cwd: target.cwd });
    assert.equal(typed.status, 0, typed.stderr);

    const session = await signIn(served, token);
    const page = await runPageOf(served, run.runId, { Cookie: session.cookie });
    assert.match(textOf(page), /answered by noor: denied \(denied by "noor"; origin: via cli/);
    assert.doesNotMatch(textOf(page), /answered by you/);
    assert.match(page, /<form id="answer"/);

    const approved = await apiAnswer(served, token, run.runId, { digest, decision: "approve" });
    assert.equal(approved.status, 200);
    assert.equal(approved.body.recorded, true);
    assert.match(approved.body.notice ?? "", /a denial already stands \(denied by noor\)/);
    const after = textOf(await runPageOf(served, run.runId, { Cookie: session.cookie }));
    assert.match(after, /answered by you: approved, waiting for the app to act/);
  },
);
