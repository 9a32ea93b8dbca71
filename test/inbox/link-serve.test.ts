import assert from "node:assert/strict";
import { Agent, Decision, Policy, tool } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { openLinkStore } from "../../src/inbox/link-store.js";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { payAgent } from "../cli/pay-agent.js";
import { linkRow, locationOf, makeLink, postLink } from "./link-helpers.js";
import { addApprover, answersOf, pausedRun, serve } from "./serve-helpers.js";

/** What a GET must leave as it was: the run's saved state, its trail, and the link's row. */
async function snapshot(target: CliStore, runId: string, token: string): Promise<unknown> {
  return {
    state: (await target.store.load(runId))?.toJSON(),
    trail: (await target.store.read(runId)).map((record) => record.digest),
    link: await linkRow(target, token),
  };
}

eachStore(
  "opening a link twice changes nothing; its form then approves once as the link's person, and the resume runs the call once",
  async (t, target) => {
    const run = await pausedRun(target);
    await addApprover(target, "noor");
    const served = await serve(t, target);
    const link = makeLink(target, served, run.runId, "noor");
    const digest = run.pending?.digest ?? "";
    const before = await snapshot(target, run.runId, link.token);

    for (let time = 0; time < 2; time++) {
      const page = await fetch(link.url);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("referrer-policy"), "no-referrer");
      const text = await page.text();
      assert.match(text, /data-field="tool">pay</);
      assert.match(text, new RegExp(`data-field="digest" class="digest">${digest}<`));
      assert.match(text, /data-field="goal">pay the bill</);
      assert.match(text, /&quot;amount&quot;: 10/);
      assert.match(text, /<form id="answer" method="post" action="\/link\/leash_lk_[A-Za-z0-9_-]{43}"/);
      assert.match(text, /name="decision" value="approve"/);
      assert.match(text, /name="decision" value="deny"/);
    }
    assert.deepEqual(await snapshot(target, run.runId, link.token), before);
    assert.deepEqual(await answersOf(target, run.runId), []);

    // Fields other than the decision and the note are ignored: the link answers as noor, for its digest.
    const posted = await postLink(served, link.url, {
      decision: "approve",
      note: "fine by me",
      approver: "mallory",
      digest: "0".repeat(64),
    });
    assert.equal(posted.status, 200);
    assert.equal(posted.headers.get("referrer-policy"), "no-referrer");
    assert.match(await posted.text(), /role="status"[\s\S]*Your approval of step 0 of run[\s\S]*recorded as/);
    const answers = await answersOf(target, run.runId);
    assert.equal(answers.length, 1);
    const [answer] = answers;
    const row = await linkRow(target, link.token);
    assert.ok(row?.usedAt !== undefined, "the link is spent");
    assert.equal(answer?.approver, "noor");
    assert.equal(answer?.granted, true);
    assert.equal(answer?.note, "fine by me");
    assert.equal(answer?.digest, digest);
    assert.equal(answer?.origin?.via, "link");
    assert.equal(answer?.origin?.user, "noor");
    assert.equal(answer?.origin?.link, row.id);
    assert.match(String(answer?.origin?.host), /127\.0\.0\.1/);

    const again = await postLink(served, link.url, { decision: "deny" });
    assert.equal(again.status, 410);
    assert.match(await again.text(), /used already/);
    assert.equal((await fetch(link.url)).status, 410);
    assert.equal((await answersOf(target, run.runId)).length, 1);

    const paid: number[] = [];
    const resumed = await payAgent(target.store, { onPay: (amount) => paid.push(amount) }).resume(run.runId);
    assert.equal(resumed.status, "completed");
    assert.deepEqual(paid, [10]);
  },
);

eachStore("of two posts of one link at once, one answers and the other is 410", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const link = makeLink(target, served, run.runId, "noor");
  const statuses = await Promise.all([
    postLink(served, link.url, { decision: "approve" }).then((response) => response.status),
    postLink(served, link.url, { decision: "deny" }).then((response) => response.status),
  ]);
  assert.deepEqual(
    [...statuses].sort((a, b) => a - b),
    [200, 410],
  );
  assert.equal((await answersOf(target, run.runId)).length, 1);
});

eachStore("an expired link and an unknown one are 410, and record nothing", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const links = await openLinkStore(locationOf(target));
  t.after(() => links.close());
  const { token } = await links.create({
    name: "noor",
    runId: run.runId,
    digest: run.pending?.digest ?? "",
    step: 0,
    expiresAt: new Date(Date.now() - 60_000).toISOString(),
  });
  const url = `${served.origin}/link/${token}`;
  const page = await fetch(url);
  assert.equal(page.status, 410);
  assert.match(await page.text(), /This link expired at/);
  assert.equal((await postLink(served, url, { decision: "approve" })).status, 410);
  const unknown = `${served.origin}/link/leash_lk_${"A".repeat(43)}`;
  assert.equal((await fetch(unknown)).status, 410);
  assert.equal((await postLink(served, unknown, { decision: "approve" })).status, 410);
  assert.equal((await fetch(`${served.origin}/link/not-a-token`)).status, 410);
  assert.deepEqual(await answersOf(target, run.runId), []);
  assert.equal((await links.find(token))?.usedAt, undefined);
});

eachStore("a link whose request changed since is 409 stale_state, and records nothing", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const link = makeLink(target, served, run.runId, "noor");
  // Denied and resumed: the run now asks to pay 10000, a request of another digest.
  const denied = leash(["deny", run.runId, "--as", "ops", ...target.args], { cwd: target.cwd });
  assert.equal(denied.status, 0, denied.stderr);
  const next = await payAgent(target.store).resume(run.runId);
  assert.equal(next.status, "awaiting_approval");
  assert.notEqual(next.pending?.digest, run.pending?.digest);

  const page = await fetch(link.url);
  assert.equal(page.status, 409);
  assert.match(await page.text(), /role="alert"[\s\S]*stale_state/);
  const posted = await postLink(served, link.url, { decision: "approve" });
  assert.equal(posted.status, 409);
  assert.match(await posted.text(), /stale_state/);
  const after = await target.store.load(run.runId);
  assert.deepEqual(
    after?.answers.filter((answer) => answer.digest === next.pending?.digest),
    [],
  );
});

eachStore("removing the person revokes their links: 410, and nothing is recorded", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const link = makeLink(target, served, run.runId, "noor");
  const removed = leash(["approvers", "remove", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(removed.status, 0, removed.stderr);
  assert.equal((await fetch(link.url)).status, 410);
  assert.equal((await postLink(served, link.url, { decision: "approve" })).status, 410);
  // Adding the name again gives a new person: the old link stays gone.
  await addApprover(target, "noor");
  assert.equal(await linkRow(target, link.token), undefined);
  assert.equal((await postLink(served, link.url, { decision: "approve" })).status, 410);
  assert.deepEqual(await answersOf(target, run.runId), []);
});

eachStore("a cross-site post of a link's form is refused and records nothing", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const link = makeLink(target, served, run.runId, "noor");
  const attempts: [string, Record<string, string>][] = [
    ["Sec-Fetch-Site: cross-site", { Origin: served.origin, "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "Sec-Fetch-Site": "same-site" }],
    ["a foreign Origin", { Origin: "http://evil.example" }],
    ["a null Origin without Sec-Fetch-Site", { Origin: "null" }],
  ];
  for (const [label, headers] of attempts) {
    const response = await postLink(served, link.url, { decision: "approve" }, headers);
    assert.equal(response.status, 403, label);
    assert.match(await response.text(), /csrf_refused/, label);
  }
  assert.deepEqual(await answersOf(target, run.runId), []);
  assert.equal((await linkRow(target, link.token))?.usedAt, undefined, "the link is not spent");
  // The form from its own page still works.
  assert.equal((await postLink(served, link.url, { decision: "deny", note: "no" })).status, 200);
  assert.equal((await answersOf(target, run.runId))[0]?.granted, false);
});

eachStore("a form without a decision is 400 and leaves the link unspent", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const link = makeLink(target, served, run.runId, "noor");
  const response = await postLink(served, link.url, { decision: "approve_and_allow" });
  assert.equal(response.status, 400);
  assert.match(await response.text(), /invalid_option/);
  assert.equal((await linkRow(target, link.token))?.usedAt, undefined);
  assert.deepEqual(await answersOf(target, run.runId), []);
});

/** An agent whose pay waits for a person, and whose policy refuses any answer given through a link. */
function noLinksAgent(store: RunStore & AuditSink, paid: number[]): Agent {
  const pay = tool<{ amount: number }>({
    name: "pay",
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    effect: "write",
    execute: ({ amount }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
  });
  return new Agent({
    tools: [pay],
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", { amount: 10 }) : Decision.finish("done")),
    policy: new Policy({
      allowEffects: ["read", "write"],
      mayApprove: (_approver, _request, origin) => origin?.via !== "link",
    }),
    store,
    audit: store,
  });
}

eachStore(
  "an app policy that refuses answers given through a link makes a link's approval decide nothing at resume",
  async (t, target) => {
    const paid: number[] = [];
    const agent = noLinksAgent(target.store, paid);
    const run = await agent.run("pay the bill");
    assert.equal(run.status, "awaiting_approval");
    await addApprover(target, "noor");
    const served = await serve(t, target);
    const link = makeLink(target, served, run.runId, "noor");
    assert.equal((await postLink(served, link.url, { decision: "approve" })).status, 200);
    assert.equal((await answersOf(target, run.runId))[0]?.origin?.via, "link");

    const resumed = await agent.resume(run.runId).catch((error: unknown) => error);
    assert.deepEqual(paid, []);
    const stored = await target.store.load(run.runId);
    assert.equal(stored?.status, "awaiting_approval");
    if (resumed instanceof Error) assert.match(String((resumed as { code?: string }).code), /approver_not_allowed/);
  },
);

/** An agent that ticks four times, asking a person to raise max_tool_calls after two: a limit request. */
function tickAgent(store: RunStore & AuditSink): Agent {
  return new Agent({
    tools: [tool({ name: "tick", execute: () => "tick" })],
    planner: (state) => (state.toolCalls >= 4 ? Decision.finish(state.toolCalls) : Decision.act("tick", {})),
    limits: { maxToolCalls: 2, askToRaise: ["max_tool_calls"] },
    store,
    audit: store,
  });
}

eachStore(
  "a person whose roles do not answer a limit request gets no link for it, and a link to it is 403 role_refused",
  async (t, target) => {
    const paused = await tickAgent(target.store).run("tick four times");
    assert.equal(paused.pending?.kind, "limit");
    // Every person of the registry is an approver (until roles are kept): a limit request needs a spender.
    await addApprover(target, "noor");
    const refused = leash(["link", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /\(role_refused\)$/m);

    const served = await serve(t, target);
    const links = await openLinkStore(locationOf(target));
    t.after(() => links.close());
    const { token } = await links.create({
      name: "noor",
      runId: paused.runId,
      digest: paused.pending?.digest ?? "",
      step: paused.pending?.step ?? 0,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const url = `${served.origin}/link/${token}`;
    const page = await fetch(url);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /role="alert"[\s\S]*role_refused/);
    const posted = await postLink(served, url, { decision: "approve", raise_to: "4" });
    assert.equal(posted.status, 403);
    assert.match(await posted.text(), /role_refused/);
    assert.equal((await links.find(token))?.usedAt, undefined, "a refused post spends nothing");
    assert.deepEqual(await answersOf(target, paused.runId), []);
  },
);
