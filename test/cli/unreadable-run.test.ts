import assert from "node:assert/strict";
import { leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

eachStore("runs lists the readable runs and names an unreadable one on stderr and in --json", async (t, target) => {
  const agent = payAgent(target.store);
  const good = await agent.run("pay the first invoice");
  const bad = await agent.run("pay the second invoice");
  await target.corruptState(bad.runId);

  const text = leash(["runs", ...target.args], { cwd: target.cwd });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, new RegExp(good.runId));
  assert.doesNotMatch(text.stdout, new RegExp(bad.runId));
  assert.match(text.stderr, new RegExp(`run ${bad.runId} cannot be read`));

  const json = leash(["runs", ...target.args, "--json"], { cwd: target.cwd });
  assert.equal(json.status, 0, json.stderr);
  const listed = JSON.parse(json.stdout) as { runs: { runId: string }[]; unreadable: { runId: string }[] };
  assert.deepEqual(
    listed.runs.map((run) => run.runId),
    [good.runId],
  );
  assert.deepEqual(
    listed.unreadable.map((run) => run.runId),
    [bad.runId],
  );
});

eachStore("verify --db verifies the readable runs and reports an unreadable one as a problem", async (t, target) => {
  const agent = payAgent(target.store);
  const good = await agent.run("pay the first invoice");
  const bad = await agent.run("pay the second invoice");
  await target.corruptState(bad.runId);

  const verify = leash(["verify", ...target.args, "--json"], { cwd: target.cwd });
  assert.equal(verify.status, 1, verify.stderr);
  const report = JSON.parse(verify.stdout) as {
    runs: number;
    heads: Record<string, unknown>;
    problems: { run: string; problem: string }[];
  };
  assert.deepEqual(
    report.problems.map((problem) => [problem.run, problem.problem]),
    [[bad.runId, "unreadable_state"]],
  );
  assert.ok(good.runId in report.heads, "the readable run is checked against its head");
  assert.equal(report.runs, 2);
});
