import assert from "node:assert/strict";
import { Agent, Decision } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { leash } from "../cli/cli-helpers.js";
import { summarize } from "../helpers/summarize-skill.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, pausedRun, serve } from "./serve-helpers.js";

const HOSTILE_GOAL = "pay <script>alert(1)</script> now \u001b[31mred\u001b[0m \u202eevil";
const HOSTILE_MEMO = '"><img src=x onerror=alert(1)> \u001b[2K\u202e';
const HOSTILE_REASON = "</dd><script>alert(2)</script>' \u001b]0;title\u0007 \u202eright-to-left";

/** An agent whose plain runs finish at once, and whose skill's every answer is refused (it gives up). */
function quickAgent(store: RunStore & AuditSink): Agent {
  return new Agent({
    tools: [],
    planner: (state) => Decision.finish(state.skill === undefined ? "done" : { words: 1000 }),
    store,
    audit: store,
  });
}

function rowsOf(page: string): { runId: string; status: string }[] {
  return [...page.matchAll(/<tr data-run-id="([^"]+)" data-status="([^"]+)"/g)].map((match) => ({
    runId: match[1] as string,
    status: match[2] as string,
  }));
}

/** Reads a server-sent event stream until `pattern` shows up in it, or fails after a generous deadline. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp, seen: { text: string }) {
  const decoder = new TextDecoder();
  const deadline = Date.now() + 30_000;
  while (!pattern.test(seen.text)) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in the stream within 30 s: ${seen.text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${pattern}: ${seen.text}`);
    seen.text += decoder.decode(value, { stream: true });
  }
}

eachStore("hostile text in a goal, arguments and reason comes back escaped and inert", async (t, target) => {
  const run = await pausedRun(target, HOSTILE_GOAL, { memo: HOSTILE_MEMO, reason: HOSTILE_REASON });
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  for (const path of ["/", `/runs/${encodeURIComponent(run.runId)}`]) {
    const page = await (await fetch(new URL(path, served.url), { headers })).text();
    assert.doesNotMatch(page, /<script>alert|<img src=x|<\/dd><script>/, path);
    for (const character of ["\u001b", "\u0007", "\u202e"])
      assert.ok(!page.includes(character), `${path}: no control or bidi character reaches the page`);
    assert.match(
      page,
      /pay &lt;script&gt;alert\(1\)&lt;\/script&gt; now <span class="ctl">\\x1b<\/span>\[31mred<span class="ctl">\\x1b<\/span>\[0m <span class="ctl">\\u202e<\/span>evil/,
      path,
    );
  }
  const page = await (await fetch(new URL(`/runs/${encodeURIComponent(run.runId)}`, served.url), { headers })).text();
  // The arguments are pretty-printed JSON, each line escaped: the memo shows as the text it is.
  assert.match(
    page,
    /<pre class="json" data-field="args">\{\n {2}&quot;amount&quot;: 10,\n {2}&quot;memo&quot;: &quot;\\&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt; \\u001b\[2K<span class="ctl">\\u202e<\/span>&quot;\n\}<\/pre>/,
  );
  assert.match(
    page,
    /data-field="reason">&lt;\/dd&gt;&lt;script&gt;alert\(2\)&lt;\/script&gt;&#39; <span class="ctl">\\x1b<\/span>\]0;title<span class="ctl">\\x07<\/span> <span class="ctl">\\u202e<\/span>right-to-left</,
  );
  assert.match(page, /<li data-step="0"/);
  assert.match(page, /data-field="chain"><span class="ok">verified/);
  assert.match(page, /data-field="usage">/);
  assert.match(page, /data-field="cost">/);
});

eachStore(
  "invisible characters show as marked escapes, and the text of an escape typed by a model stays plain",
  async (t, target) => {
    const invisible = ["\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\u2800"];
    const goal = `pay${invisible.join("")} now \\u202e`;
    const run = await pausedRun(target, goal, { memo: `memo${invisible.join("")}` });
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const headers = { Authorization: `Bearer ${token}` };
    for (const path of ["/", `/runs/${encodeURIComponent(run.runId)}`]) {
      const page = await (await fetch(new URL(path, served.url), { headers })).text();
      for (const character of invisible) {
        const code = (character.codePointAt(0) ?? 0).toString(16).padStart(4, "0");
        assert.ok(!page.includes(character), `${path}: U+${code} never reaches the page as itself`);
        assert.ok(page.includes(`<span class="ctl">\\u${code}</span>`), `${path}: U+${code} is a marked escape`);
      }
      assert.match(page, /now \\u202e</, `${path}: the model's own text "\\u202e" is plain text`);
    }
    const page = await (await fetch(new URL(`/runs/${encodeURIComponent(run.runId)}`, served.url), { headers })).text();
    assert.match(page, /&quot;memo<span class="ctl">\\u115f<\/span>/, "in the arguments' JSON too");
  },
);

eachStore("the run list is newest first, 50 a page, and filters by status, gave_up included", async (t, target) => {
  const agent = quickAgent(target.store);
  const completed: string[] = [];
  for (let index = 0; index < 51; index++) completed.push((await agent.run(`task ${index}`)).runId);
  const gaveUp = await agent.do(summarize, "the manual", { limits: { maxRejections: 0 } });
  assert.equal(gaveUp.status, "failed");
  const paused = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  const html = async (path: string) => (await fetch(new URL(path, served.url), { headers })).text();

  const api = async (query: string) =>
    (await (await fetch(new URL(`/api/runs${query}`, served.url), { headers })).json()) as {
      runs: { runId: string; updatedAt: string }[];
      page: number | null;
      next: string | null;
    };
  const first = await api("");
  const second = await api("?page=2");
  assert.equal(first.runs.length, 50);
  assert.equal(typeof first.next, "string", "a full page has a next cursor");
  assert.equal(second.page, 2);
  assert.equal(second.runs.length, 54 - 50);
  assert.equal(second.next, null, "the last page has none");
  const byCursor = await api(`?cursor=${encodeURIComponent(first.next ?? "")}`);
  assert.deepEqual(byCursor.runs, second.runs, "the next cursor reads the page that ?page=2 does");
  assert.equal(byCursor.page, null, "a cursor alone does not say the page's number");
  const all = [...first.runs, ...second.runs];
  assert.equal(new Set(all.map((run) => run.runId)).size, 54);
  for (let index = 1; index < all.length; index++)
    assert.ok((all[index - 1]?.updatedAt ?? "") >= (all[index]?.updatedAt ?? ""), "newest first");
  assert.equal(all[0]?.runId, paused.runId, "the run touched last comes first");

  const pageOne = rowsOf(await html("/"));
  assert.deepEqual(
    pageOne.map((row) => row.runId),
    first.runs.map((run) => run.runId),
  );
  assert.equal(rowsOf(await html("/?page=2")).length, 4);
  assert.match(await html("/"), /<a rel="next" href="\/\?page=2&amp;cursor=[A-Za-z0-9_-]+">/);
  const older = /<a rel="next" href="([^"]+)">/.exec(await html("/"))?.[1]?.replace(/&amp;/g, "&") ?? "";
  assert.deepEqual(
    rowsOf(await html(older)).map((row) => row.runId),
    second.runs.map((run) => run.runId),
  );
  assert.match(await html(older), /<a rel="prev" href="\/">/);

  assert.deepEqual(rowsOf(await html("/?status=awaiting_approval")), [
    { runId: paused.runId, status: "awaiting_approval" },
  ]);
  const done = rowsOf(await html("/?status=completed"));
  assert.equal(done.length, 50);
  assert.ok(done.every((row) => row.status === "completed" && completed.includes(row.runId)));
  assert.deepEqual(
    rowsOf(await html("/?status=gave_up")).map((row) => row.runId),
    [gaveUp.task],
  );
  const gaveUpPage = await html("/gave-up");
  assert.match(gaveUpPage, new RegExp(`<tr data-run-id="${gaveUp.task}">`));
  assert.match(gaveUpPage, /data-field="attempts"[^>]*>2</);
  assert.match(gaveUpPage, /data-field="problem"><code>answer_rejected<\/code>/);
  assert.equal((await fetch(new URL("/?status=nonsense", served.url), { headers })).status, 400);
});

eachStore("/events sends change when a run is answered from another process", async (t, target) => {
  const run = await pausedRun(target);
  const other = await pausedRun(target, "another bill");
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  const one = await fetch(new URL(`/events?run=${encodeURIComponent(run.runId)}`, served.url), { headers });
  const every = await fetch(new URL("/events", served.url), { headers });
  const oneReader = (one.body as ReadableStream<Uint8Array>).getReader();
  const everyReader = (every.body as ReadableStream<Uint8Array>).getReader();
  const oneSeen = { text: "" };
  const everySeen = { text: "" };
  t.after(() => Promise.all([oneReader.cancel(), everyReader.cancel()]));
  await readUntil(oneReader, /event: ready/, oneSeen);
  await readUntil(everyReader, /event: ready/, everySeen);

  const approved = leash(["approve", other.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(approved.status, 0, approved.stderr);
  await readUntil(everyReader, /event: change\ndata: .*\n\n/, everySeen);
  assert.match(everySeen.text, new RegExp(`event: change\\ndata: \\{"runs":\\["${other.runId}"\\]\\}`));

  const denied = leash(["deny", run.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(denied.status, 0, denied.stderr);
  await readUntil(oneReader, /event: change\n/, oneSeen);
  assert.doesNotMatch(oneSeen.text, new RegExp(other.runId), "a run's stream tells of that run only");
});

eachStore("SIGTERM and SIGINT close it cleanly with exit 0, open event streams included", async (t, target) => {
  const token = await addApprover(target, "noor");
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const served = await serve(t, target);
    const events = await fetch(new URL("/events", served.url), { headers: { Authorization: `Bearer ${token}` } });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, /event: ready/, { text: "" });
    assert.equal(await served.stop(signal), 0, `${signal}: ${served.stderr()}`);
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
  }
});

eachStore(
  "a cursor that is not one, or a bad page, is refused with 400 invalid_option and lists nothing",
  async (t, target) => {
    const agent = quickAgent(target.store);
    await agent.run("task one");
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const headers = { Authorization: `Bearer ${token}` };
    const wrongOrder = Buffer.from(JSON.stringify(["created_asc", "x", "y"])).toString("base64url");
    for (const query of [
      "?cursor=not-a-cursor",
      `?cursor=${wrongOrder}`,
      "?page=0",
      "?page=1.5",
      // Past 200 pages a page number alone would make the server read that many pages first.
      "?page=201",
      "?page=9007199254740991",
      "?status=gave_up&cursor=%00",
      `?cursor=${Buffer.from(JSON.stringify(["updated_desc", "\u0000", "a"])).toString("base64url")}`,
    ]) {
      const api = await fetch(new URL(`/api/runs${query}`, served.url), { headers });
      assert.equal(api.status, 400, query);
      assert.equal(((await api.json()) as { error: { code: string } }).error.code, "invalid_option", query);
      const page = await fetch(new URL(`/${query}`, served.url), { headers });
      assert.equal(page.status, 400, query);
      assert.doesNotMatch(await page.text(), /task one/, query);
    }
    const gaveUp = await fetch(new URL("/gave-up?cursor=not-a-cursor", served.url), { headers });
    assert.equal(gaveUp.status, 400);
  },
);
