import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, html, Html, joinHtml } from "../../src/inbox/html.js";
import { SignInThrottle } from "../../src/inbox/sign-in-throttle.js";
import { SessionStore } from "../../src/inbox/session-store.js";

test("the html template escapes every interpolated value and keeps only its own fragments raw", () => {
  const hostile = `"><script>alert('x')</script>&`;
  const fragment = html`<b>${hostile}</b>`;
  assert.equal(fragment.toString(), "<b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</b>");
  assert.equal(html`<p>${fragment}</p>`.toString(), `<p>${fragment.toString()}</p>`);
  assert.equal(html`<p>${[fragment, "<i>"]}</p>`.toString(), `<p>${fragment.toString()}&lt;i&gt;</p>`);
  assert.equal(html`<p>${null}${undefined}${false}${0}</p>`.toString(), "<p>0</p>");
  // A plain object that claims to be a fragment is text, not markup.
  const forged = { toString: () => "<script>" } as unknown as string;
  assert.equal(html`${forged}`.toString(), "&lt;script&gt;");
  assert.throws(() => new Html(Symbol("built by html"), "<script>"), TypeError);
  assert.equal(joinHtml([html`${"<a>"}`, html`b`], "\n").toString(), "&lt;a&gt;\nb");
});

test("escapeHtml shows terminal escapes, bidirectional overrides and invisible characters as marked escapes", () => {
  const ctl = (escape: string) => `<span class="ctl">${escape}</span>`;
  assert.equal(escapeHtml("pay 10\u001b[2K\rpay 10000"), `pay 10${ctl("\\x1b")}[2K${ctl("\\r")}pay 10000`);
  assert.equal(escapeHtml("abc\u202edef\u200b"), `abc${ctl("\\u202e")}def${ctl("\\u200b")}`);
  assert.equal(escapeHtml("line\nbreak"), `line${ctl("\\n")}break`);
  for (const invisible of ["\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\u2800"])
    assert.equal(
      escapeHtml(`a${invisible}b`),
      `a${ctl(`\\u${invisible.codePointAt(0)?.toString(16).padStart(4, "0")}`)}b`,
    );
  // The text of an escape, typed by a model, stays plain text: only a real character gets the mark.
  assert.equal(escapeHtml("\\u202e"), "\\u202e");
  // In an attribute, the escape without the mark.
  assert.equal(html`<i title="${"a\u202e"}">${"b"}</i>`.toString(), '<i title="a\\u202e">b</i>');
});

test("failed sign-ins from an address make its next attempt wait longer, and a success clears it", () => {
  let now = 0;
  const throttle = new SignInThrottle({ now: () => now });
  assert.equal(throttle.delayFor("a"), 0);
  throttle.failed("a");
  assert.equal(throttle.delayFor("a"), 250);
  throttle.failed("a");
  throttle.failed("a");
  assert.equal(throttle.delayFor("a"), 1000);
  assert.equal(throttle.delayFor("b"), 0, "another address is not slowed");
  for (let index = 0; index < 20; index++) throttle.failed("a");
  assert.equal(throttle.delayFor("a"), 8000, "capped");
  throttle.succeeded("a");
  assert.equal(throttle.delayFor("a"), 0);
  throttle.failed("c");
  now = 10 * 60_000;
  assert.equal(throttle.delayFor("c"), 0, "forgotten after a quiet while");
});

test("a session expires after 12 idle hours, and each request resets its clock", () => {
  let now = 0;
  const sessions = new SessionStore({ now: () => now });
  const session = sessions.create("noor", "leash_at_x");
  assert.match(session.id, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(session.csrf, session.id);
  now = 11 * 3_600_000;
  assert.equal(sessions.touch(session.id)?.name, "noor");
  now += 11 * 3_600_000;
  assert.equal(sessions.touch(session.id)?.name, "noor", "eleven hours after the last request");
  now += 12 * 3_600_000 + 1;
  assert.equal(sessions.touch(session.id), undefined);
});
