import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { root } from "../cli/cli-helpers.js";
import { payAgent } from "../cli/pay-agent.js";
import { sql } from "../postgres/database.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";
import type { Served } from "./serve-helpers.js";

const oddPolicyAgent = join(root, "test", "fixtures", "inbox", "odd-policy-agent.ts");

const NOTICE = /role="status"[^>]*>\s*Your (approval|denial) was recorded/;

function signInAttempt(served: Served, token: string): Promise<Response> {
  return fetch(new URL("/signin", served.url), {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { Origin: served.origin },
    redirect: "manual",
  });
}

eachStore(
  "the notice that an answer was recorded comes from the session, once, never from a link",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const view = async (query = "") =>
      (await fetch(new URL(`/runs/${run.runId}${query}`, served.url), { headers: { Cookie: session.cookie } })).text();
    assert.doesNotMatch(await view("?answered=approved"), NOTICE, "a link cannot claim an approval");
    const answered = await postAnswer(served, session, run.runId, {
      _csrf: session.csrf,
      digest: run.pending?.digest ?? "",
      decision: "approve",
    });
    assert.equal(answered.status, 303);
    assert.equal(answered.headers.get("location"), `/runs/${run.runId}`);
    assert.match(await view(), NOTICE);
    assert.doesNotMatch(await view(), NOTICE, "shown once");
  },
);

eachStore(
  "failed sign-ins from an address are answered one at a time, and a good token is never kept waiting",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const wrong = (index: number) => `leash_at_${String(index).padStart(43, "0")}`;
    // Four failures in a row: the next wrong guess waits 4 s before it is answered.
    for (let index = 0; index < 4; index++) assert.equal((await signInAttempt(served, wrong(index))).status, 401);
    const order: string[] = [];
    const slow = signInAttempt(served, wrong(99)).then((response) => {
      order.push("the slow guess");
      return response.status;
    });
    // Sent while that one waits: every other wrong guess is refused at once, the good token signs in.
    const parallel = await Promise.all(
      Array.from({ length: 10 }, (_, index) => signInAttempt(served, wrong(index + 10))),
    );
    order.push("the parallel guesses");
    assert.deepEqual(
      parallel.map((response) => response.status),
      Array.from({ length: 10 }, () => 429),
    );
    const good = await signInAttempt(served, token);
    order.push("the good token");
    assert.equal(good.status, 303);
    assert.equal(await slow, 401);
    assert.deepEqual(order, ["the parallel guesses", "the good token", "the slow guess"]);
  },
);

eachStore(
  "with --agent, a mayApprove that returns a Promise, a truthy value or throws refuses, as a resume does",
  async (t, target) => {
    const run = await pausedRun(target);
    const token = await addApprover(target, "noor");
    for (const mode of ["promise", "truthy", "throw"]) {
      const served = await serve(t, target, ["--agent", oddPolicyAgent], { LEASH_TEST_MAY_APPROVE: mode });
      const api = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ digest: run.pending?.digest, decision: "approve" }),
      });
      assert.equal(api.status, 403, mode);
      assert.equal(((await api.json()) as { error: { code: string } }).error.code, "approver_not_allowed", mode);
      assert.deepEqual(await answersOf(target, run.runId), [], mode);
      assert.equal(await served.stop(), 0);
    }
  },
);

eachStore(
  "a store failure tells a visitor who is not signed in only that the store is out of reach",
  async (t, target) => {
    await target.store.list();
    // A registry table the inbox cannot read: every look-up of a token fails in the store.
    if (target.kind === "sqlite") {
      const database = new Database(target.args[1]);
      database.exec("CREATE TABLE leash_approvers (name TEXT)");
      database.close();
    } else await sql(target.args[1] as string, `CREATE TABLE "${target.args[3]}".leash_approvers (name TEXT)`);
    const served = await serve(t, target);
    const api = await fetch(new URL("/api/runs", served.url), {
      headers: { Authorization: `Bearer leash_at_${"a".repeat(43)}` },
    });
    assert.equal(api.status, 503);
    assert.deepEqual(await api.json(), {
      error: { code: "store_unavailable", message: "The inbox cannot reach its store." },
    });
    const page = await signInAttempt(served, `leash_at_${"b".repeat(43)}`);
    assert.equal(page.status, 503);
    const text = await page.text();
    assert.match(text, /cannot reach its store/);
    assert.doesNotMatch(text, /token_sha256|leash_approvers|runs\.db|postgres/);
    assert.match(served.stderr(), /token_sha256/, "the details are in the server's log");
  },
);

eachStore(
  "runs whose ids a browser would resolve away (. and ..) are linked and answered through ?id=",
  async (t, target) => {
    const plain = await pausedRun(target);
    for (const runId of [".", ".."]) {
      const state = await payAgent(target.store).run("pay the odd bill", { runId });
      assert.equal(state.status, "awaiting_approval");
    }
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const get = async (path: string) =>
      (await fetch(new URL(path, served.url), { headers: { Cookie: session.cookie } })).text();
    const list = await get("/");
    assert.match(list, /<a href="\/run\?id=\.\.">/);
    assert.match(list, /<a href="\/run\?id=\.">/);
    assert.match(list, new RegExp(`<a href="/runs/${plain.runId}">`), "other ids keep /runs/ID");
    for (const runId of [".", ".."]) {
      const page = await get(`/run?id=${encodeURIComponent(runId)}`);
      assert.match(page, new RegExp(`action="/run/answer\\?id=${runId.replace(/\./g, "\\.")}"`));
      const digest = /data-digest="([0-9a-f]{64})"/.exec(page)?.[1] ?? "";
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
      const answered = await fetch(new URL(`/run/answer?id=${encodeURIComponent(runId)}`, served.url), {
        method: "POST",
        body: new URLSearchParams({ _csrf: csrf, digest, decision: "deny" }),
        headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
        redirect: "manual",
      });
      assert.equal(answered.status, 303, runId);
      assert.equal(answered.headers.get("location"), `/run?id=${encodeURIComponent(runId)}`);
      assert.equal((await answersOf(target, runId))[0]?.approver, "noor");
    }
  },
);
