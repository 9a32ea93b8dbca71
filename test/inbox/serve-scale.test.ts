import assert from "node:assert/strict";
import { Agent, Decision } from "../../src/index.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, pausedRun, serve } from "./serve-helpers.js";

/** An agent whose skill's every answer is refused: each piece of its work gives up after two attempts. */
const summarize = {
  name: "Summarize",
  brief: (page: string) => `Summarize ${page}.`,
  check: () => "A summary is short.",
  retry: { attempts: 2 },
};

eachStore("lists show goals shortened to 200 characters; the run's page shows the whole goal", async (t, target) => {
  const goal = `Pay ${"the very long invoice ".repeat(60)}END-OF-GOAL`;
  const run = await pausedRun(target, goal);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  const list = await (await fetch(served.url, { headers })).text();
  assert.match(list, new RegExp(`${goal.slice(180, 200)}…`));
  assert.doesNotMatch(list, /END-OF-GOAL/);
  const api = (await (await fetch(new URL("/api/runs", served.url), { headers })).json()) as {
    runs: { goal: string; goalShortened: boolean }[];
  };
  assert.equal(api.runs[0]?.goal, `${goal.slice(0, 200)}…`);
  assert.equal(api.runs[0]?.goalShortened, true);
  const page = await (await fetch(new URL(`/runs/${run.runId}`, served.url), { headers })).text();
  assert.match(page, /END-OF-GOAL/);
});

eachStore("the work that gave up is listed 50 a page", async (t, target) => {
  const agent = new Agent({
    tools: [],
    planner: () => Decision.finish({ words: 1000 }),
    store: target.store,
    audit: target.store,
  });
  const given: string[] = [];
  for (let index = 0; index < 51; index++)
    given.push((await agent.do(summarize, `page ${index}`, { limits: { maxRejections: 0 } })).task);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const html = async (path: string) =>
    (await fetch(new URL(path, served.url), { headers: { Authorization: `Bearer ${token}` } })).text();
  const rows = (text: string) => [...text.matchAll(/<tr data-run-id="([^"]+)"/g)].map((match) => match[1]);
  const first = await html("/gave-up");
  assert.equal(rows(first).length, 50);
  assert.match(first, /<a rel="next" href="\/gave-up\?page=2&amp;cursor=[A-Za-z0-9_-]+">/);
  const second = rows(await html("/gave-up?page=2"));
  assert.equal(second.length, 1);
  assert.deepEqual(new Set([...rows(first), ...second]), new Set(given));
});
