import assert from "node:assert/strict";
import { join } from "node:path";
import { leash, root } from "./cli-helpers.js";
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

/** Every line of stderr, parsed: under --json each must be one JSON object. */
function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`A line of stderr under --json is not JSON: ${line}`);
      }
    });
}

eachStore(
  "under --json, the warnings of runs and the worker's log lines are one JSON object per line",
  async (t, target) => {
    const agent = payAgent(target.store);
    const bad = await agent.run("pay the second invoice");
    await target.corruptState(bad.runId);

    const runs = leash(["runs", ...target.args, "--json"], { cwd: target.cwd });
    assert.equal(runs.status, 0, runs.stderr);
    const warnings = jsonLines(runs.stderr);
    assert.equal(warnings.length, 1, runs.stderr);
    assert.equal(warnings[0]?.runId, bad.runId);

    const agentModule = join(root, "test", "fixtures", "cli", "any-store-agent.ts");
    const worker = leash(["worker", "--agent", agentModule, ...target.args, "--once", "--json"], {
      cwd: target.cwd,
      env: { LEASH_TEST_EFFECTS: join(target.cwd, "effects.log") },
    });
    assert.equal(worker.status, 0, worker.stderr);
    const logged = jsonLines(worker.stderr);
    // SQLite's poll reads every waiting run and meets the bad one; PostgreSQL's may not look at it.
    if (target.kind === "sqlite") assert.ok(logged.length > 0, "the worker says it could not read the run");
    assert.ok(
      logged.every((line) => typeof line.message === "string"),
      worker.stderr,
    );
  },
);
