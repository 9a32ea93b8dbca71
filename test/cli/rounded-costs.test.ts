// Costs as people read them are rounded (`0.00021`, not `0.00020999999999999998`; `0.0000003`, not
// `3e-7`) on every surface a person reads: `leash show`, `leash runs`, the inbox's list and run page.
// `--json` and the JSON API keep the exact number.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Agent, Decision, Policy, tool } from "../../src/index.js";
import type { AuditSink, RunState, RunStore } from "../../src/index.js";
import { costText } from "../../src/operate/cost-text.js";
import { addApprover, serve } from "../inbox/serve-helpers.js";
import { leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";

/**
 * A run whose two decisions report these costs, summed by the run as floating point sums them. Its id
 * is made from the goal: a random id could hold the very text the output is checked not to (`e-7`).
 */
function spend(store: RunStore & AuditSink, costs: [number, number], goal: string): Promise<RunState> {
  const look = tool({ name: "look", execute: () => "seen" });
  const agent = new Agent({
    tools: [look],
    planner: (state) =>
      state.steps.length === 0
        ? Decision.act("look", {}, { usage: { tokens: 10, cost: costs[0] } })
        : Decision.finish("done", { usage: { tokens: 5, cost: costs[1] } }),
    policy: new Policy({}),
    store,
    audit: store,
  });
  return agent.run(goal, { runId: goal.replaceAll(" ", "-") });
}

eachStore("leash show and leash runs print costs rounded; --json keeps them exact", async (_t, target) => {
  const sum = await spend(target.store, [0.00007, 0.00014], "spend a little");
  const tiny = await spend(target.store, [1e-7, 2e-7], "spend almost nothing");
  assert.equal(sum.usage.cost, 0.00007 + 0.00014);
  assert.equal(String(sum.usage.cost), "0.00020999999999999998");
  assert.equal(String(tiny.usage.cost), "3e-7");

  const shown = leash(["show", sum.runId, ...target.args], { cwd: target.cwd });
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, /^Usage: 15 tokens, cost 0\.00021$/m);
  const tinyShown = leash(["show", tiny.runId, ...target.args], { cwd: target.cwd });
  assert.match(tinyShown.stdout, /^Usage: 15 tokens, cost 0\.0000003$/m);

  const runs = leash(["runs", ...target.args], { cwd: target.cwd });
  assert.equal(runs.status, 0, runs.stderr);
  assert.match(runs.stdout, /^RUN +STATUS +SKILL \/ GOAL +STEPS +COST +UPDATED$/m);
  assert.match(runs.stdout, new RegExp(`^${sum.runId} .* 0\\.00021 +\\d{4}-`, "m"));
  assert.match(runs.stdout, new RegExp(`^${tiny.runId} .* 0\\.0000003 +\\d{4}-`, "m"));
  assert.doesNotMatch(`${shown.stdout}${runs.stdout}`, /99999|e-7/);

  const json = leash(["show", sum.runId, "--json", ...target.args], { cwd: target.cwd });
  assert.equal((JSON.parse(json.stdout) as { state: { usage: { cost: number } } }).state.usage.cost, sum.usage.cost);
  const listed = leash(["runs", "--json", ...target.args], { cwd: target.cwd });
  const rows = (JSON.parse(listed.stdout) as { runs: { runId: string; cost: number }[] }).runs;
  assert.equal(rows.find((row) => row.runId === sum.runId)?.cost, sum.usage.cost);
});

eachStore("the inbox's list and run page print costs rounded; its JSON API keeps them exact", async (t, target) => {
  const sum = await spend(target.store, [0.00007, 0.00014], "spend a little");
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  const page = await (await fetch(new URL(`/runs/${sum.runId}`, served.url), { headers })).text();
  assert.match(page, /<dd data-field="cost">0\.00021<\/dd>/);
  const list = await (await fetch(served.url, { headers })).text();
  assert.match(list, /data-field="cost">0\.00021</);
  assert.doesNotMatch(`${page}${list}`, /0\.000209999/);
  const api = (await (await fetch(new URL(`/api/runs/${sum.runId}`, served.url), { headers })).json()) as {
    run: { usage: { cost: number } };
  };
  assert.equal(api.run.usage.cost, sum.usage.cost);
  const rows = (await (await fetch(new URL("/api/runs", served.url), { headers })).json()) as {
    runs: { cost: number }[];
  };
  assert.equal(rows.runs[0]?.cost, sum.usage.cost);
});

test("a cost is rounded to six significant digits in plain decimals, never fewer than two decimals' worth", () => {
  const cases: [number, string][] = [
    [0.00020999999999999998, "0.00021"],
    [0.30000000000000004, "0.3"],
    [3e-7, "0.0000003"],
    [0, "0"],
    [12, "12"],
    [12345.678901, "12345.68"],
    [1234567.891, "1234567.89"],
    [0.1234567, "0.123457"],
    [1e21, "1000000000000000000000"],
  ];
  for (const [cost, text] of cases) assert.equal(costText(cost), text, String(cost));
});
