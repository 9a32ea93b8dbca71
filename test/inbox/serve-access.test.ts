import assert from "node:assert/strict";
import { request } from "node:http";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, pausedRun, serve, signIn } from "./serve-helpers.js";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function assertSecurityHeaders(response: Response, route: string): void {
  assert.equal(response.headers.get("content-security-policy"), CSP, `CSP on ${route}`);
  assert.equal(response.headers.get("x-content-type-options"), "nosniff", `nosniff on ${route}`);
  assert.equal(response.headers.get("referrer-policy"), "no-referrer", `referrer policy on ${route}`);
  assert.equal(response.headers.get("cache-control"), "no-store", `no-store on ${route}`);
}

/** A GET with a `Host` header of the test's choice (fetch would send the URL's own). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outgoing = request(
      { host: target.hostname, port: target.port, path: "/signin", headers: { Host: host } },
      (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
      },
    );
    outgoing.on("error", reject).end();
  });
}

eachStore("nothing is visible without sign-in: pages redirect to /signin, the API answers 401", async (t, target) => {
  const run = await pausedRun(target);
  await addApprover(target, "noor");
  const served = await serve(t, target);
  const id = encodeURIComponent(run.runId);
  for (const path of ["/", "/?status=awaiting_approval", "/gave-up", `/runs/${id}`, `/events?run=${id}`, "/events"]) {
    const response = await fetch(new URL(path, served.url), { redirect: "manual" });
    assert.equal(response.status, 303, `GET ${path}`);
    assert.equal(response.headers.get("location"), "/signin", `GET ${path}`);
    assertSecurityHeaders(response, `GET ${path}`);
    assert.doesNotMatch(await response.text(), /pay the bill|awaiting/, `GET ${path} shows nothing`);
  }
  const form = { method: "POST", redirect: "manual", headers: { Origin: served.origin } } as const;
  for (const path of [`/runs/${id}/answer`, "/signout"]) {
    const response = await fetch(new URL(path, served.url), {
      ...form,
      body: new URLSearchParams({ digest: run.pending?.digest ?? "", decision: "approve" }),
    });
    assert.equal(response.status, 303, `POST ${path}`);
    assert.equal(response.headers.get("location"), "/signin");
  }
  for (const [method, path] of [
    ["GET", "/api/runs"],
    ["GET", `/api/runs/${id}`],
    ["POST", `/api/runs/${id}/answer`],
  ] as const) {
    const response = await fetch(new URL(path, served.url), {
      method,
      headers: { Authorization: "Bearer leash_at_not-a-token", "Content-Type": "application/json" },
      ...(method === "POST" ? { body: JSON.stringify({ digest: run.pending?.digest, decision: "approve" }) } : {}),
    });
    assert.equal(response.status, 401, `${method} ${path}`);
    assertSecurityHeaders(response, `${method} ${path}`);
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "unauthorized");
  }
  assert.deepEqual((await target.store.load(run.runId))?.answers, [], "nothing was recorded");
});

eachStore(
  "every answer carries the CSP and the other security headers, errors and assets included",
  async (t, target) => {
    const run = await pausedRun(target);
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const bearer = { Authorization: `Bearer ${token}` };
    const routes: [string, Record<string, string>, number][] = [
      ["/signin", {}, 200],
      ["/assets/inbox.css", {}, 200],
      ["/assets/inbox.js", {}, 200],
      ["/", bearer, 200],
      ["/gave-up", bearer, 200],
      [`/runs/${encodeURIComponent(run.runId)}`, bearer, 200],
      ["/runs/no-such-run", bearer, 404],
      ["/?status=nonsense", bearer, 400],
      ["/api/runs", bearer, 200],
      ["/api/runs/no-such-run", bearer, 404],
    ];
    for (const [path, headers, status] of routes) {
      const response = await fetch(new URL(path, served.url), { headers, redirect: "manual" });
      assert.equal(response.status, status, `GET ${path}`);
      assertSecurityHeaders(response, `GET ${path}`);
      await response.arrayBuffer();
    }
    const missing = (await (await fetch(new URL("/api/runs/no-such-run", served.url), { headers: bearer })).json()) as {
      error: { code: string };
    };
    assert.equal(missing.error.code, "run_not_found");
    const events = await fetch(new URL("/events", served.url), { headers: bearer });
    assert.equal(events.status, 200);
    assert.match(events.headers.get("content-type") ?? "", /^text\/event-stream/);
    assertSecurityHeaders(events, "GET /events");
    await events.body?.cancel();
    const css = await (await fetch(new URL("/assets/inbox.css", served.url))).text();
    assert.doesNotMatch(css, /@import|https?:\/\//, "the stylesheet loads nothing from elsewhere");
    const page = await (await fetch(served.url, { headers: bearer })).text();
    assert.doesNotMatch(page, /<script>|<style|style=|src="https?:|href="https?:/, "no inline script or style, no CDN");
  },
);

eachStore("a Host header other than the address it listens on is refused with 421", async (t, target) => {
  await target.store.list();
  const served = await serve(t, target);
  const port = new URL(served.url).port;
  assert.equal(await getWithHost(served.url, `127.0.0.1:${port}`), 200);
  assert.equal(await getWithHost(served.url, `localhost:${port}`), 200);
  assert.equal(await getWithHost(served.url, `attacker.example:${port}`), 421);
  assert.equal(await getWithHost(served.url, "127.0.0.1:1"), 421);
});

eachStore(
  "an approver signs in with a token from leash approvers add, in an HttpOnly SameSite=Strict cookie, until removed",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const signinPage = await (await fetch(new URL("/signin", served.url))).text();
    assert.match(signinPage, /<form method="post" action="\/signin"/);
    assert.match(signinPage, /<input[^>]*name="token"[^>]*type="password"/);

    const wrong = await fetch(new URL("/signin", served.url), {
      method: "POST",
      body: new URLSearchParams({ token: `${token}x` }),
      redirect: "manual",
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    assert.match(await wrong.text(), /role="alert"/);

    const good = await fetch(new URL("/signin", served.url), {
      method: "POST",
      body: new URLSearchParams({ token }),
      headers: { Origin: served.origin },
      redirect: "manual",
    });
    assert.equal(good.status, 303);
    assert.equal(good.headers.get("location"), "/");
    const cookie = good.headers.get("set-cookie") ?? "";
    assert.match(cookie, /^leash_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.match(cookie, /; Path=\//);

    const session = await signIn(served, token);
    const home = await fetch(served.url, { headers: { Cookie: session.cookie } });
    assert.equal(home.status, 200);
    assert.match(await home.text(), /Signed in as <strong>noor<\/strong>/);

    // Removed from the registry by another process: the open session stops working at once.
    const removed = leash(["approvers", "remove", "noor", ...target.args], { cwd: target.cwd });
    assert.equal(removed.status, 0, removed.stderr);
    const after = await fetch(served.url, { headers: { Cookie: session.cookie }, redirect: "manual" });
    assert.equal(after.status, 303);
    assert.equal(after.headers.get("location"), "/signin");
  },
);

eachStore("signing out ends the session, and only with the session's CSRF token", async (t, target) => {
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const session = await signIn(served, token);
  const forged = await fetch(new URL("/signout", served.url), {
    method: "POST",
    body: new URLSearchParams({ _csrf: "forged" }),
    headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
    redirect: "manual",
  });
  assert.equal(forged.status, 403);
  assert.equal((await fetch(served.url, { headers: { Cookie: session.cookie }, redirect: "manual" })).status, 200);
  const out = await fetch(new URL("/signout", served.url), {
    method: "POST",
    body: new URLSearchParams({ _csrf: session.csrf }),
    headers: { Cookie: session.cookie, Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
    redirect: "manual",
  });
  assert.equal(out.status, 303);
  assert.equal(out.headers.get("location"), "/signin");
  assert.equal((await fetch(served.url, { headers: { Cookie: session.cookie }, redirect: "manual" })).status, 303);
});
