// What the inbox refuses, in a real browser: text a model wrote that tries to run as HTML or script or
// to reorder what a person reads, every page without sign-in, and a form forged on another origin
// while the browser holds a valid session.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  addApprover,
  eachStore,
  freshPage,
  inPage,
  screenshot,
  signIn,
  startInbox,
  startPausedRun,
  useBrowser,
} from "./support.js";

const browser = useBrowser();

const SCRIPT = "<script>window.pwned=1</script>";
const IMAGE = '"><img src=x onerror=window.pwned=1>';
const HOSTILE = `${SCRIPT} ${IMAGE} \u001b[31mred\u001b[0m \u202epay 10000`;

eachStore("text from the model in the goal, the arguments and the reason renders as inert text", async (t, target) => {
  const token = await addApprover(target, "noor");
  const runId = await startPausedRun(target, { goal: `Goal ${HOSTILE}`, reason: `Reason ${HOSTILE}`, memo: HOSTILE });
  const inbox = await startInbox(t, target);
  const page = await freshPage(t, browser());
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await signIn(page, inbox.url, token);

  for (const path of ["", `runs/${runId}`]) {
    await page.goto(new URL(path, inbox.url).href);
    await page.locator("main").waitFor();
    const text = await page.locator("main").innerText();
    assert.ok(text.includes(SCRIPT), `/${path} shows the script tag as text`);
    assert.ok(text.includes(IMAGE.slice(2)), `/${path} shows the image tag as text`);
    assert.ok(!text.includes("\u202e"), `/${path} shows no raw bidirectional override, which reorders text`);
    assert.ok(!text.includes("\u001b"), `/${path} shows no raw escape character`);
    assert.ok(text.includes("\\u202epay 10000") && text.includes("\\x1b[31mred"), `/${path} shows them as escapes`);
    assert.equal(await page.locator('img[src="x"]').count(), 0, `/${path} made no image of the text`);
    assert.equal(await inPage<unknown>(page, "window.pwned"), undefined);
  }
  const pending = page.locator("section[data-field=pending]");
  assert.ok((await pending.locator("[data-field=reason]").innerText()).includes(`Reason ${SCRIPT}`));
  assert.ok((await pending.locator("pre[data-field=args]").innerText()).includes(SCRIPT));
  assert.deepEqual(errors, []);
});

eachStore("every page without sign-in lands on the sign-in page, and the API answers 401", async (t, target) => {
  await addApprover(target, "noor");
  const runId = await startPausedRun(target);
  const inbox = await startInbox(t, target);
  const page = await freshPage(t, browser());

  for (const path of ["", "?status=awaiting_approval", "gave-up", `runs/${runId}`]) {
    const response = await page.goto(new URL(path, inbox.url).href);
    assert.equal(new URL(page.url()).pathname, "/signin", `/${path} leads to /signin`);
    assert.equal(response?.status(), 200);
  }
  const form = page.locator('form[method="post"][action="/signin"]');
  assert.equal(await form.locator('input[name="token"]').getAttribute("type"), "password");
  await screenshot(page, "signin", target.kind);

  const events = await page.request.get(new URL(`events?run=${runId}`, inbox.url).href, { maxRedirects: 0 });
  assert.ok([303, 401].includes(events.status()), `the live events answer ${events.status()} without sign-in`);
  const api = await page.request.get(new URL(`api/runs/${runId}`, inbox.url).href);
  assert.equal(api.status(), 401);
  assert.equal(((await api.json()) as { error: { code: string } }).error.code, "unauthorized");

  await page.locator('input[name="token"]').fill("leash_at_not-a-token-of-anyone-at-all-0000000000");
  const [refused] = await Promise.all([
    page.waitForResponse((answer) => answer.request().method() === "POST"),
    page.locator('button[type="submit"]').click(),
  ]);
  assert.equal(refused.status(), 401);
  await page.locator("[role=alert]").waitFor();
  assert.equal((await page.context().cookies()).filter((cookie) => cookie.name === "leash_session").length, 0);
});

eachStore(
  "a session cookie is HttpOnly and SameSite=Strict, pages carry the security headers, and signing out ends it",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const inbox = await startInbox(t, target);
    const page = await freshPage(t, browser());
    await signIn(page, inbox.url, token);
    const [cookie] = (await page.context().cookies()).filter((each) => each.name === "leash_session");
    assert.deepEqual([cookie?.httpOnly, cookie?.sameSite, cookie?.path], [true, "Strict", "/"]);
    const response = await page.goto(inbox.url);
    const headers = response?.headers() ?? {};
    assert.match(headers["content-security-policy"] ?? "", /default-src 'none'/);
    assert.match(headers["content-security-policy"] ?? "", /script-src 'self'/);
    assert.match(headers["content-security-policy"] ?? "", /frame-ancestors 'none'/);
    assert.equal(headers["x-content-type-options"], "nosniff");
    assert.equal(headers["referrer-policy"], "no-referrer");
    assert.equal(headers["cache-control"], "no-store");
    assert.equal(await inPage<boolean>(page, 'document.cookie.includes("leash_session")'), false);

    await Promise.all([
      page.waitForURL((address) => address.pathname === "/signin"),
      page.locator('form[action="/signout"] button').click(),
    ]);
    await page.goto(inbox.url);
    assert.equal(new URL(page.url()).pathname, "/signin", "signed out, the inbox shows nothing");
  },
);

eachStore(
  "a form forged on another origin is refused while the browser holds a session, and records nothing",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const runId = await startPausedRun(target);
    const { digest } = (await target.store.load(runId))?.pending ?? { digest: "" };
    const inbox = await startInbox(t, target);
    const page = await freshPage(t, browser());
    await signIn(page, inbox.url, token);

    // Another loopback origin (same host, another port: the same site, so a SameSite cookie is still
    // sent) serves a page that posts an approval of the real digest as soon as it loads.
    const action = new URL(`runs/${runId}/answer`, inbox.url).href;
    const forged = createServer((_request, response) => {
      response.setHeader("content-type", "text/html");
      response.end(
        `<!doctype html><form id="f" method="post" action="${action}">` +
          `<input name="digest" value="${digest}"><input name="decision" value="approve">` +
          `<input name="_csrf" value="guessed"><input name="note" value="forged"></form>` +
          `<script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => forged.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => forged.close(() => resolve())));
    const forgedUrl = `http://127.0.0.1:${(forged.address() as AddressInfo).port}/`;

    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === action),
      page.goto(forgedUrl, { waitUntil: "commit" }),
    ]);
    assert.equal(answer.status(), 403);
    await page.locator("[role=alert]").waitFor();
    // The session's cookie without the session's CSRF token does not answer through the JSON API either.
    const json = await page.request.post(new URL(`api/runs/${runId}/answer`, inbox.url).href, {
      data: { digest, decision: "approve" },
    });
    assert.equal(json.status(), 403);
    assert.equal(((await json.json()) as { error: { code: string } }).error.code, "csrf_refused");
    const state = await target.store.load(runId);
    assert.deepEqual(state?.answers, [], "nothing was recorded");
    assert.equal(state?.status, "awaiting_approval");
    assert.deepEqual(target.payments(), []);
  },
);
