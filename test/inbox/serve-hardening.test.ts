import assert from "node:assert/strict";
import { request } from "node:http";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, postAnswer, serve, signIn } from "./serve-helpers.js";
import type { Served } from "./serve-helpers.js";

/** Reads a stream until it ends, failing after a generous deadline. */
async function untilEnded(reader: ReadableStreamDefaultReader<Uint8Array>, what: string): Promise<void> {
  const deadline = setTimeout(() => void reader.cancel(new Error("deadline")), 30_000);
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value);
      if (text.includes("deadline")) break;
    }
  } catch {
    throw new Error(`${what}: the stream was still open after 30 s: ${text}`);
  } finally {
    clearTimeout(deadline);
  }
}

/** Opens an event stream and reads it until the server says it is ready. */
async function openStream(served: Served, headers: Record<string, string>) {
  const response = await fetch(new URL("/events", served.url), { headers });
  assert.equal(response.status, 200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("event: ready")) {
    const { done, value } = await reader.read();
    assert.ok(!done, `the stream ended before it was ready: ${text}`);
    text += new TextDecoder().decode(value);
  }
  return reader;
}

/** A POST whose headers promise `length` bytes, of which none are sent: the status it gets at once. */
function promisedBody(served: Served, path: string, length: number, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const target = new URL(path, served.url);
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: "POST",
        headers: { "Content-Length": String(length), Origin: served.origin, ...headers },
      },
      (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
        outgoing.destroy();
      },
    );
    outgoing.on("error", reject);
    outgoing.write("token=");
  });
}

/** A POST sent in chunks without a length, 1 MiB offered while no answer came: the status it gets. */
function chunkedBody(served: Served, path: string, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const target = new URL(path, served.url);
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: "POST",
        headers: { Origin: served.origin, ...headers },
      },
      (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
        outgoing.destroy();
      },
    );
    outgoing.on("error", reject);
    let sent = 0;
    const more = (): void => {
      while (sent < 64 && !outgoing.destroyed) {
        sent++;
        if (!outgoing.write("a".repeat(16 * 1024))) return void outgoing.once("drain", more);
      }
    };
    more();
  });
}

eachStore(
  "a cookie session works only from the browser it signed in with, its POSTs need Sec-Fetch-Site: same-origin, and each answer spends its CSRF token",
  async (t, target) => {
    const first = await pausedRun(target);
    const second = await pausedRun(target, "another bill");
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const home = (agent?: string) =>
      fetch(served.url, {
        headers: { Cookie: session.cookie, ...(agent === undefined ? {} : { "User-Agent": agent }) },
        redirect: "manual",
      });
    assert.equal((await home()).status, 200);
    const elsewhere = await home("curl/8.0 on another port's server");
    assert.equal(elsewhere.status, 303, "the cookie from another User-Agent signs nobody in");
    assert.equal((await home()).status, 200, "and the session itself is left alone");

    const digest = first.pending?.digest ?? "";
    const replayed = await postAnswer(
      served,
      session,
      first.runId,
      { _csrf: session.csrf, digest, decision: "approve" },
      { Origin: served.origin },
    );
    assert.equal(replayed.status, 403, "a POST without Sec-Fetch-Site: same-origin");
    assert.match(await replayed.text(), /csrf_refused/);
    assert.deepEqual(await answersOf(target, first.runId), []);

    const answered = await postAnswer(served, session, first.runId, { _csrf: session.csrf, digest, decision: "deny" });
    assert.equal(answered.status, 303);
    const spent = await postAnswer(served, session, second.runId, {
      _csrf: session.csrf,
      digest: second.pending?.digest ?? "",
      decision: "approve",
    });
    assert.equal(spent.status, 403, "the token of the page before the answer is spent");
    assert.deepEqual(await answersOf(target, second.runId), []);
    const fresh = /name="_csrf" value="([^"]+)"/.exec(await (await home()).text())?.[1];
    assert.ok(fresh !== undefined && fresh !== session.csrf);
    const next = await postAnswer(served, session, second.runId, {
      _csrf: fresh,
      digest: second.pending?.digest ?? "",
      decision: "approve",
    });
    assert.equal(next.status, 303);
    assert.equal((await answersOf(target, second.runId)).length, 1);
  },
);

eachStore("bodies over the limit are refused with 413 before they are read", async (t, target) => {
  const run = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  assert.equal(await promisedBody(served, "/signin", 100 * 1024 * 1024, form), 413, "a promised 100 MiB sign-in");
  const bigSignIn = await fetch(new URL("/signin", served.url), {
    method: "POST",
    headers: { Origin: served.origin, ...form },
    body: `token=${"a".repeat(5 * 1024)}`,
  });
  assert.equal(bigSignIn.status, 413, "a 5 KiB sign-in");
  // Sent in chunks, without a length (1 MiB offered): read up to the limit only.
  const chunked = await chunkedBody(served, "/signin", form);
  assert.equal(chunked, 413, "a chunked 1 MiB sign-in");

  const session = await signIn(served, token);
  const digest = run.pending?.digest ?? "";
  const bigForm = await postAnswer(served, session, run.runId, {
    _csrf: session.csrf,
    digest,
    decision: "approve",
    note: "n".repeat(65 * 1024),
  });
  assert.equal(bigForm.status, 413, "a 65 KiB answer form");
  assert.match(await bigForm.text(), /role="alert"/);
  const bigJson = await fetch(new URL(`/api/runs/${run.runId}/answer`, served.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ digest, decision: "approve", note: "n".repeat(65 * 1024) }),
  });
  assert.equal(bigJson.status, 413, "a 65 KiB JSON answer");
  assert.equal(((await bigJson.json()) as { error: { code: string } }).error.code, "body_too_large");
  assert.deepEqual(await answersOf(target, run.runId), []);
  assert.equal((await fetch(new URL("/signin", served.url))).status, 200, "the server still answers");
});

eachStore("an event stream ends when its approver signs out, or is removed", async (t, target) => {
  const token = await addApprover(target, "noor");
  const other = await addApprover(target, "ivy");
  const served = await serve(t, target);
  const session = await signIn(served, token);
  const cookieStream = await openStream(served, { Cookie: session.cookie });
  const out = await fetch(new URL("/signout", served.url), {
    method: "POST",
    body: new URLSearchParams({ _csrf: session.csrf }),
    headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
    redirect: "manual",
  });
  assert.equal(out.status, 303);
  await untilEnded(cookieStream, "after sign-out");

  const bearerStream = await openStream(served, { Authorization: `Bearer ${other}` });
  const removed = leash(["approvers", "remove", "ivy", ...target.args], { cwd: target.cwd });
  assert.equal(removed.status, 0, removed.stderr);
  await untilEnded(bearerStream, "after approvers remove");
});

eachStore("HEAD /events answers its headers only and opens no stream", async (t, target) => {
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  for (let index = 0; index < 5; index++) {
    const head = await fetch(new URL("/events", served.url), {
      method: "HEAD",
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(head.status, 200);
    assert.match(head.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(head.headers.get("content-length"), null);
  }
  assert.equal(await served.stop(), 0, served.stderr());
});
