import assert from "node:assert/strict";
import { join } from "node:path";
import { leash, root } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

eachStore(
  "runs lists a run whose saved state cannot be read from its summary, which the store kept beside it",
  async (t, target) => {
    const agent = payAgent(target.store);
    const good = await agent.run("pay the first invoice");
    const bad = await agent.run("pay the second invoice");
    await target.corruptState(bad.runId);

    // A store with summaries lists the damaged run from its summary (a listing reads no state; `leash
    // show` and `leash verify` find it damaged); one without them lists states, and leaves the damaged
    // run out, naming it on stderr and in --json's `unreadable`. Never both, never neither.
    const text = leash(["runs", ...target.args], { cwd: target.cwd });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(good.runId));
    const listedBad = text.stdout.includes(bad.runId);
    assert.equal(text.stderr.includes(`run ${bad.runId} cannot be read`), !listedBad, text.stdout + text.stderr);

    const json = leash(["runs", ...target.args, "--json"], { cwd: target.cwd });
    assert.equal(json.status, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { runs: { runId: string }[]; unreadable: { runId: string }[] };
    assert.deepEqual(
      listed.runs.map((run) => run.runId),
      listedBad ? [good.runId, bad.runId] : [good.runId],
    );
    assert.deepEqual(
      listed.unreadable.map((run) => run.runId),
      listedBad ? [] : [bad.runId],
    );
    const show = leash(["show", bad.runId, ...target.args], { cwd: target.cwd });
    assert.notEqual(show.status, 0, "show reads the state, and refuses it");
  },
);

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
    // A listing of summaries reads no state: nothing to warn of; every line of stderr is JSON either way.
    const warnings = jsonLines(runs.stderr);
    // From summaries nothing is read, so nothing is warned of; from states the damaged run is named.
    assert.ok(warnings.length === 0 || (warnings.length === 1 && warnings[0]?.runId === bad.runId), runs.stderr);

    const agentModule = join(root, "test", "fixtures", "cli", "any-store-agent.ts");
    const worker = leash(["worker", "--agent", agentModule, ...target.args, "--once", "--json"], {
      cwd: target.cwd,
      env: { LEASH_TEST_EFFECTS: join(target.cwd, "effects.log") },
    });
    assert.equal(worker.status, 0, worker.stderr);
    const logged = jsonLines(worker.stderr);
    // A poll from summaries loads only answered runs, and the bad one has no answer: it is not read.
    assert.ok(
      logged.every((line) => typeof line.message === "string"),
      worker.stderr,
    );
  },
);
