// An answer whose text is not JSON text (a lone surrogate) is the caller's mistake, answered 400 with
// the field named, and nothing is recorded: on the JSON API and on the answer form alike.
import assert from "node:assert/strict";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, serve, signIn } from "./serve-helpers.js";
import type { Served } from "./serve-helpers.js";

/** A JSON body as a script might send it, with `\ud800`-style escapes kept as written. */
function postJson(served: Served, token: string, runId: string, body: string): Promise<Response> {
  return fetch(new URL(`/api/runs/${encodeURIComponent(runId)}/answer`, served.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body,
  });
}

eachStore(
  "a JSON answer whose note, digest or decision holds a lone surrogate is a 400 naming the field",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const token = await addApprover(target, "noor");
    const digest = run.pending?.digest ?? "";
    const cases: [string, string, RegExp][] = [
      ["note", `{"digest":"${digest}","decision":"approve","note":"fine \\ud800 by me"}`, /note/],
      ["note (a low surrogate alone)", `{"digest":"${digest}","decision":"deny","note":"\\udfff"}`, /note/],
      ["note (a high surrogate at the end)", `{"digest":"${digest}","decision":"approve","note":"ok \\udbff"}`, /note/],
      ["digest", `{"digest":"${digest.slice(0, 63)}\\ud800","decision":"approve"}`, /digest/],
      ["decision", `{"digest":"${digest}","decision":"approve\\ud800"}`, /decision/],
    ];
    for (const [label, body, field] of cases) {
      const response = await postJson(served, token, run.runId, body);
      assert.equal(response.status, 400, label);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      assert.match(error.message, field, label);
      assert.notEqual(error.code, "internal_error", label);
    }
    const lone = await postJson(
      served,
      token,
      run.runId,
      `{"digest":"${digest}","decision":"approve","note":"\\ud83d"}`,
    );
    const { error } = (await lone.json()) as { error: { code: string; message: string } };
    assert.equal(error.code, "not_json");
    assert.match(error.message, /lone surrogate/);
    assert.deepEqual(await answersOf(target, run.runId), []);

    // A well-formed pair of surrogates (an emoji) is text like any other.
    const emoji = await postJson(
      served,
      token,
      run.runId,
      `{"digest":"${digest}","decision":"approve","note":"\\ud83d\\ude00"}`,
    );
    assert.equal(emoji.status, 200);
    assert.equal((await answersOf(target, run.runId))[0]?.note, "\u{1F600}");
  },
);

eachStore(
  "an answer form whose note carries the bytes of a lone surrogate records well-formed text, never a 500",
  async (t, target) => {
    const run = await pausedRun(target);
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "noor"));
    const digest = run.pending?.digest ?? "";
    // A form body is UTF-8: a lone surrogate reaches the server as the bytes of its WTF-8 encoding.
    const response = await fetch(new URL(`/runs/${encodeURIComponent(run.runId)}/answer`, served.url), {
      method: "POST",
      body: `_csrf=${encodeURIComponent(session.csrf)}&digest=${digest}&decision=approve&note=a%ED%A0%80b`,
      headers: {
        Cookie: session.cookie,
        Origin: served.origin,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      redirect: "manual",
    });
    // The bytes are read as UTF-8, so an unpaired half becomes a replacement character and the note is
    // well-formed text: recorded, never a 500.
    assert.equal(response.status, 303);
    const [answer] = await answersOf(target, run.runId);
    assert.equal(answer?.note, "a\ufffd\ufffd\ufffdb");
  },
);

eachStore(
  "a run id that holds a lone surrogate is answered as a run that is not there, never a 500",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const headers = { Authorization: `Bearer ${token}` };
    for (const path of [
      "/api/runs/%ED%A0%80",
      "/api/runs/a%ED%A0%80b/answer",
      "/run?id=%ED%A0%80",
      "/runs/%ED%A0%80",
    ]) {
      const response = await fetch(new URL(path, served.url), {
        method: path.endsWith("/answer") ? "POST" : "GET",
        headers: { ...headers, "Content-Type": "application/json" },
        ...(path.endsWith("/answer") ? { body: `{"digest":"${"0".repeat(64)}","decision":"approve"}` } : {}),
      });
      assert.ok(response.status === 400 || response.status === 404, `${path}: ${response.status}`);
    }
  },
);
