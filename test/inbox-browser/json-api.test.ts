// The inbox's JSON API as a script uses it (the guide's curl example): a Bearer token instead of a
// session, no CSRF token needed, answers pinned to the digest like the page's.
import assert from "node:assert/strict";
import { addApprover, eachStore, startInbox, startPausedRun, stopAllChildren } from "./inbox-app.js";
import { after } from "node:test";
import { request } from "node:http";

/** The status of a GET sent with a `Host` header of its own (fetch does not let one be set). */
function statusWithHost(url: string, host: string, token: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host, authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    sent.on("error", reject);
    sent.end();
  });
}

after(stopAllChildren);

interface RunAnswer {
  run: { runId: string; status: string; pending?: { digest: string; tool: string; args: unknown } };
  chain: { ok: boolean; problems: unknown[] };
}

eachStore("a script with a Bearer token lists, reads and answers a run through the JSON API", async (t, target) => {
  const token = await addApprover(target, "deploy-bot");
  const runId = await startPausedRun(target, { goal: "Pay invoice INV-2050" });
  const inbox = await startInbox(t, target);
  const bearer = { authorization: `Bearer ${token}` };

  const listed = await fetch(new URL("api/runs?status=awaiting_approval", inbox.url), { headers: bearer });
  assert.equal(listed.status, 200);
  const list = (await listed.json()) as { runs: { runId: string }[]; page: number; next: string | null };
  assert.deepEqual(
    list.runs.map((run) => run.runId),
    [runId],
  );
  assert.deepEqual([list.page, list.next], [1, null]);

  const read = await fetch(new URL(`api/runs/${runId}`, inbox.url), { headers: bearer });
  const { run, chain } = (await read.json()) as RunAnswer;
  assert.equal(run.status, "awaiting_approval");
  assert.deepEqual(chain, { ok: true, problems: [] });
  const digest = run.pending?.digest as string;
  assert.equal(digest, (await target.store.load(runId))?.pending?.digest);

  const wrong = await fetch(new URL(`api/runs/${runId}/answer`, inbox.url), {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json" },
    body: JSON.stringify({ digest: "0".repeat(64), decision: "approve" }),
  });
  assert.equal(wrong.status, 409);
  assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, "stale_state");

  const answered = await fetch(new URL(`api/runs/${runId}/answer`, inbox.url), {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json" },
    body: JSON.stringify({ digest, decision: "approve", note: "checked against PO-88" }),
  });
  assert.equal(answered.status, 200);
  const state = await target.store.load(runId);
  assert.deepEqual(
    state?.answers.map(({ granted, approver, note }) => ({ granted, approver, note })),
    [{ granted: true, approver: "deploy-bot", note: "checked against PO-88" }],
  );

  const missing = await fetch(new URL("api/runs/no-such-run", inbox.url), { headers: bearer });
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "run_not_found");
  const anonymous = await fetch(new URL("api/runs", inbox.url));
  assert.equal(anonymous.status, 401);
});

eachStore("a request naming another host, as a DNS-rebinding page does, is refused with 421", async (t, target) => {
  const token = await addApprover(target, "noor");
  const inbox = await startInbox(t, target);
  const port = new URL(inbox.url).port;
  const runs = new URL("api/runs", inbox.url).href;
  assert.equal(await statusWithHost(runs, `attacker.example:${port}`, token), 421);
  assert.equal(await statusWithHost(runs, `localhost:${port}`, token), 200);
  assert.equal(await statusWithHost(runs, `127.0.0.1:${port}`, token), 200);
});
