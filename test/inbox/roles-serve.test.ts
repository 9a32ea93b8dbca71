// Roles in the inbox, through the real `leash serve` on SQLite and (with DATABASE_URL) PostgreSQL: a
// viewer sees everything and answers nothing; a spender answers limit requests, an approver calls'
// requests; standing grants are an approver's; every refusal is 403 `role_refused` and records
// nothing; an answer's origin carries the roles; the header names the person and their roles.
import assert from "node:assert/strict";
import { Agent, Decision, tool } from "../../src/index.js";
import type { AuditSink, LimitApprovalRequest, RunState, RunStore } from "../../src/index.js";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { oldRegistryTable } from "./roles-helpers.js";
import { addApprover, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";
import type { Served, SignedIn } from "./serve-helpers.js";

/** A run that waits for a raise of max_tool_calls: a limit request. */
async function limitRun(store: RunStore & AuditSink): Promise<RunState> {
  const agent = new Agent({
    tools: [tool({ name: "tick", execute: () => "tick" })],
    planner: (state) => (state.toolCalls >= 3 ? Decision.finish(state.toolCalls) : Decision.act("tick", {})),
    limits: { maxToolCalls: 1, askToRaise: ["max_tool_calls"] },
    store,
    audit: store,
  });
  const paused = await agent.run("tick three times");
  assert.equal(paused.status, "awaiting_approval");
  assert.equal(paused.pending?.kind, "limit");
  return paused;
}

/** The stored state and trail of a run, to compare before and after a refusal. */
async function snapshot(target: CliStore, runId: string): Promise<{ state: unknown; trail: number }> {
  const state = await target.store.load(runId);
  assert.ok(state !== null);
  return { state: state.toJSON(), trail: (await target.store.read(runId)).length };
}

function get(served: Served, path: string, session: SignedIn): Promise<Response> {
  return fetch(new URL(path, served.url), { headers: { Cookie: session.cookie }, redirect: "manual" });
}

/** A POST of the API's answer route with a Bearer token. */
function apiAnswer(served: Served, token: string, runId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(new URL(`/api/runs/${encodeURIComponent(runId)}/answer`, served.url), {
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  });
}

/** A page's form POST as a signed-in browser sends it. */
function postForm(served: Served, session: SignedIn, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(new URL(path, served.url), {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
    redirect: "manual",
  });
}

/** The code of a refusal, whether a JSON error or a page with `Code: <code>...</code>`. */
async function codeOf(response: Response): Promise<string | undefined> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("json"))
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  return /Code: <code>([a-z_]+)<\/code>/.exec(text)?.[1];
}

eachStore(
  "a viewer sees the runs, a run's trail, the gave-up list, grants and budgets, and every POST that answers, grants or revokes is 403 role_refused and records nothing",
  async (t, target) => {
    const call = await pausedRun(target);
    const limit = await limitRun(target.store);
    const grant = await target.store.grant!({ tool: "pay", args: { const: { amount: 1 } }, maxUses: 3, by: "ops" });
    await target.store.setBudget!("team-a", { maxCost: 10 });
    const token = await addApprover(target, "vic", ["viewer"]);
    const served = await serve(t, target);
    const session = await signIn(served, token);

    const callPage = await get(served, `/runs/${call.runId}`, session);
    assert.equal(callPage.status, 200);
    const callHtml = await callPage.text();
    assert.match(
      callHtml,
      /Signed in as <strong>vic<\/strong>\s*<span[^>]*data-field="signed-in-roles"[^>]*>\(viewer\)/,
    );
    assert.match(callHtml, /You can view only \(role viewer\)/);
    assert.match(callHtml, /data-field="history"/, "the run's trail and request are shown");
    assert.doesNotMatch(callHtml, /<form id="answer/, "no answer form");
    assert.doesNotMatch(callHtml, /name="decision"/);
    const limitHtml = await (await get(served, `/run?id=${encodeURIComponent(limit.runId)}`, session)).text();
    assert.match(limitHtml, /You can view only \(role viewer\)/);
    assert.doesNotMatch(limitHtml, /name="raise_to"/);
    for (const path of ["/", "/?status=awaiting_approval", "/gave-up", "/grants", "/budgets"]) {
      const response = await get(served, path, session);
      assert.equal(response.status, 200, `GET ${path}`);
      const text = await response.text();
      if (path === "/grants") {
        assert.match(text, new RegExp(`data-grant-id="${grant.id}"`));
        assert.doesNotMatch(text, /Revoke as|class="revoke"/, "no revoke button");
      }
      if (path === "/budgets") assert.match(text, /team-a/);
    }
    for (const path of ["/api/runs", `/api/runs/${call.runId}`, "/api/budgets"]) {
      const response = await fetch(new URL(path, served.url), { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200, `GET ${path}`);
    }

    const before = { call: await snapshot(target, call.runId), limit: await snapshot(target, limit.runId) };
    const callDigest = call.pending?.digest ?? "";
    const limitDigest = limit.pending?.digest ?? "";
    const refusals: [string, () => Promise<Response>][] = [
      [
        "approve a call on its page",
        () => postAnswer(served, session, call.runId, { _csrf: session.csrf, digest: callDigest, decision: "approve" }),
      ],
      [
        "deny a call on /run/answer",
        () =>
          postForm(served, session, `/run/answer?id=${encodeURIComponent(call.runId)}`, {
            _csrf: session.csrf,
            digest: callDigest,
            decision: "deny",
          }),
      ],
      [
        "approve and allow more (a grant)",
        () =>
          postAnswer(served, session, call.runId, {
            _csrf: session.csrf,
            digest: callDigest,
            decision: "approve_and_allow",
            more_uses: "2",
            more_for: "2h",
          }),
      ],
      [
        "raise a limit on its page",
        () =>
          postAnswer(served, session, limit.runId, {
            _csrf: session.csrf,
            digest: limitDigest,
            decision: "approve",
            raise_to: "5",
          }),
      ],
      ["revoke a grant", () => postForm(served, session, `/grants/${grant.id}/revoke`, { _csrf: session.csrf })],
      [
        "approve a call by the API",
        () => apiAnswer(served, token, call.runId, { digest: callDigest, decision: "approve" }),
      ],
      [
        "raise a limit by the API",
        () => apiAnswer(served, token, limit.runId, { digest: limitDigest, decision: "approve", raise_to: 5 }),
      ],
      [
        "answer by the API with the session's cookie",
        () =>
          fetch(new URL(`/api/runs/${call.runId}/answer`, served.url), {
            method: "POST",
            body: JSON.stringify({ digest: callDigest, decision: "deny" }),
            headers: {
              Cookie: session.cookie,
              Origin: served.origin,
              "Sec-Fetch-Site": "same-origin",
              "X-CSRF-Token": session.csrf,
              "Content-Type": "application/json",
            },
          }),
      ],
    ];
    for (const [what, post] of refusals) {
      const response = await post();
      assert.equal(response.status, 403, what);
      assert.equal(await codeOf(response), "role_refused", what);
    }
    assert.deepEqual(await snapshot(target, call.runId), before.call, "the call's run is unchanged");
    assert.deepEqual(await snapshot(target, limit.runId), before.limit, "the limit's run is unchanged");
    const grants = await target.store.grants!();
    assert.deepEqual(
      grants.map((item) => [item.id, item.revoked === undefined]),
      [[grant.id, true]],
      "no grant given, none revoked",
    );

    // Signing out is not answering: a viewer may.
    const out = await postForm(served, session, "/signout", { _csrf: session.csrf });
    assert.equal(out.status, 303);
  },
);

eachStore(
  "a spender answers a limit request but not a call's; an approver a call's but not a limit request; the origin carries the roles",
  async (t, target) => {
    const call = await pausedRun(target);
    const limit = await limitRun(target.store);
    const spender = await addApprover(target, "sam", ["spender"]);
    const approver = await addApprover(target, "noor");
    const served = await serve(t, target);
    const callDigest = call.pending?.digest ?? "";
    const limitDigest = (limit.pending as LimitApprovalRequest).digest;

    const spenderOnCall = await apiAnswer(served, spender, call.runId, { digest: callDigest, decision: "approve" });
    assert.equal(spenderOnCall.status, 403);
    assert.equal(await codeOf(spenderOnCall), "role_refused");
    const approverOnLimit = await apiAnswer(served, approver, limit.runId, {
      digest: limitDigest,
      decision: "approve",
      raise_to: 5,
    });
    assert.equal(approverOnLimit.status, 403);
    assert.equal(await codeOf(approverOnLimit), "role_refused");
    // A denial is an answer too: refused the same.
    const approverDenies = await apiAnswer(served, approver, limit.runId, { digest: limitDigest, decision: "deny" });
    assert.equal(approverDenies.status, 403);
    assert.deepEqual((await target.store.load(call.runId))?.answers, []);
    assert.deepEqual((await target.store.load(limit.runId))?.answers, []);

    const raised = await apiAnswer(served, spender, limit.runId, {
      digest: limitDigest,
      decision: "approve",
      raise_to: 5,
    });
    assert.equal(raised.status, 200, await raised.clone().text());
    const approved = await apiAnswer(served, approver, call.runId, { digest: callDigest, decision: "approve" });
    assert.equal(approved.status, 200, await approved.clone().text());

    const [limitAnswer] = (await target.store.load(limit.runId))?.answers ?? [];
    assert.equal(limitAnswer?.approver, "sam");
    assert.equal(limitAnswer?.raiseTo, 5);
    assert.equal(limitAnswer?.origin?.via, "leash-serve");
    assert.equal(limitAnswer?.origin?.roles, "spender");
    const [callAnswer] = (await target.store.load(call.runId))?.answers ?? [];
    assert.equal(callAnswer?.approver, "noor");
    assert.deepEqual(Object.keys(callAnswer?.origin ?? {}).sort(), ["host", "roles", "user", "via"]);
    assert.equal(callAnswer?.origin?.user, "noor");
    assert.equal(callAnswer?.origin?.roles, "approver");
  },
);

eachStore(
  "the run page shows each person only the forms their roles allow, and grants are revoked by approvers only",
  async (t, target) => {
    const call = await pausedRun(target);
    const limit = await limitRun(target.store);
    const grant = await target.store.grant!({ tool: "pay", args: { const: { amount: 1 } }, maxUses: 3, by: "ops" });
    const served = await serve(t, target);
    const both = await signIn(served, await addApprover(target, "ada", ["approver", "spender"]));
    const spender = await signIn(served, await addApprover(target, "sam", ["spender"]));
    const approver = await signIn(served, await addApprover(target, "noor", ["approver"]));

    const page = async (session: SignedIn, run: RunState) =>
      (await get(served, `/runs/${encodeURIComponent(run.runId)}`, session)).text();
    const adaCall = await page(both, call);
    assert.match(adaCall, /\(approver, spender\)/);
    assert.match(adaCall, /<form id="answer"/);
    assert.match(adaCall, /data-field="allow-more"/);
    assert.match(await page(both, limit), /name="raise_to"/);

    const samCall = await page(spender, call);
    assert.doesNotMatch(samCall, /<form id="answer"/);
    assert.match(samCall, /data-field="role-needed"[^>]*>\s*A call&#39;s request is answered by the role approver/);
    assert.match(await page(spender, limit), /<form id="answer"/);
    const noorLimit = await page(approver, limit);
    assert.doesNotMatch(noorLimit, /<form id="answer"/);
    assert.match(noorLimit, /A limit request is answered by the role spender/);
    assert.match(await page(approver, call), /<form id="answer"/);

    const samGrants = await (await get(served, "/grants", spender)).text();
    assert.doesNotMatch(samGrants, /Revoke as/);
    const noorGrants = await (await get(served, "/grants", approver)).text();
    assert.match(noorGrants, /Revoke as noor/);
    const refused = await postForm(served, spender, `/grants/${grant.id}/revoke`, { _csrf: spender.csrf });
    assert.equal(refused.status, 403);
    assert.equal(await codeOf(refused), "role_refused");
    assert.equal((await target.store.grants!())[0]?.revoked, undefined);
    const revoked = await postForm(served, approver, `/grants/${grant.id}/revoke`, { _csrf: approver.csrf });
    assert.equal(revoked.status, 303);
    assert.equal((await target.store.grants!())[0]?.revoked?.by, "noor");
  },
);

eachStore("roles replaced with leash approvers roles hold at once for a signed-in session", async (t, target) => {
  const call = await pausedRun(target);
  const served = await serve(t, target);
  const session = await signIn(served, await addApprover(target, "vic", ["viewer"]));
  const digest = call.pending?.digest ?? "";
  const refused = await postAnswer(served, session, call.runId, { _csrf: session.csrf, digest, decision: "approve" });
  assert.equal(refused.status, 403);

  const changed = leash(["approvers", "roles", "vic", "approver", "--json", ...target.args], { cwd: target.cwd });
  assert.equal(changed.status, 0, changed.stderr);
  assert.deepEqual(JSON.parse(changed.stdout), { name: "vic", roles: ["approver"] });
  const html = await (await get(served, `/runs/${call.runId}`, session)).text();
  assert.match(html, /data-field="signed-in-roles"[^>]*>\(approver\)/);
  const csrf = /<form id="answer"[\s\S]*?name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const answered = await postAnswer(served, session, call.runId, { _csrf: csrf, digest, decision: "approve" });
  assert.equal(answered.status, 303, await answered.clone().text());
  const [answer] = (await target.store.load(call.runId))?.answers ?? [];
  assert.equal(answer?.approver, "vic");
  assert.equal(answer?.origin?.roles, "approver");
});

eachStore(
  "a registry table kept before roles still signs its people in, as approvers, and their answers are recorded",
  async (t, target) => {
    const call = await pausedRun(target);
    const token = await oldRegistryTable(target, "noor");
    const served = await serve(t, target);
    const session = await signIn(served, token);
    const html = await (await get(served, `/runs/${call.runId}`, session)).text();
    assert.match(html, /Signed in as <strong>noor<\/strong>\s*<span[^>]*>\(approver\)/);
    assert.match(html, /<form id="answer"/);
    const answered = await apiAnswer(served, token, call.runId, { digest: call.pending?.digest, decision: "approve" });
    assert.equal(answered.status, 200, await answered.clone().text());
    const [answer] = (await target.store.load(call.runId))?.answers ?? [];
    assert.equal(answer?.origin?.roles, "approver");
  },
);
