import assert from "node:assert/strict";
import { test } from "node:test";
import { formatOverheadTable, overheadScenarios, runOverheadBenchmark } from "../../src/bench/index.js";
import { loadModule, ScenarioUnavailable } from "../../src/bench/scenario.js";
import { peerScenarios } from "../../bench/peers/index.js";
import { loadLeash } from "../../bench/peers/leash-module.js";

const { leash } = await loadLeash(true);

test("the quick overhead benchmark with the peers measures every scenario at every size and reports the targets", async () => {
  const labels: string[] = [];
  const result = await runOverheadBenchmark({
    quick: true,
    peers: peerScenarios(leash),
    steps: [3, 6],
    onProgress: (_done, _total, label) => labels.push(label),
  });

  assert.deepEqual(result.settings.steps, [3, 6]);
  assert.deepEqual(
    result.rows.map((row) => row.id),
    [
      "bare-loop",
      "leash-memory",
      "leash-jsonl-none",
      "leash-jsonl-batch",
      "leash-jsonl-always",
      "leash-sqlite",
      "leash-reading-planner",
      "leash-model-planner",
      "openai-agents",
      "ai-sdk",
      "langgraph",
    ],
  );
  for (const row of result.rows) {
    assert.equal(row.skipped, undefined, `${row.id} was skipped: ${row.skipped}`);
    assert.deepEqual(
      row.cells.map((cell) => cell.steps),
      [3, 6],
    );
    for (const cell of row.cells) {
      assert.ok(cell.runsMs.length >= 1 && cell.perStepUs > 0 && cell.perStepCpuUs >= 0);
      assert.ok(Number.isFinite(cell.allocatedBytesPerStep) && cell.allocatedBytesPerStep >= 0);
    }
  }
  const fsyncs = (id: string): number | undefined =>
    result.rows.find((row) => row.id === id)?.cells.at(-1)?.fsyncsPerStep;
  assert.equal(fsyncs("leash-jsonl-none"), 0);
  assert.ok((fsyncs("leash-jsonl-always") ?? 0) >= 2, "fsync always syncs each of a step's two checkpoints");

  // Seven leash rows at two sizes, each over the floor and the three peers.
  assert.equal(result.ratios.length, 14);
  for (const ratio of result.ratios)
    assert.deepEqual(Object.keys(ratio.toPeers), ["openai-agents", "ai-sdk", "langgraph"]);

  assert.equal(result.concurrency.runs, 4);
  assert.ok(result.concurrency.ratio > 0 && result.concurrency.batch.fsyncsPerStep > 0);
  assert.equal(result.verification.problems, 0);
  assert.ok(result.verification.records >= 300 && result.verification.verifyPerSecond > 0);

  assert.ok(result.sqliteFsyncs !== null, result.sqliteNote);
  assert.ok(["strace", "commits"].includes(result.sqliteFsyncs.method));
  // Not a timing: a step saves at most twice (before and after the call), each save one transaction.
  assert.ok(result.sqliteFsyncs.commitsPerStep > 0 && result.sqliteFsyncs.commitsPerStep <= 2);

  assert.deepEqual(
    result.targets.map((target) => target.id),
    [
      "memory_step",
      "step_growth",
      "reading_step",
      "reading_growth",
      "model_planner_ratio",
      "model_planner_ratio",
      "sqlite_fsyncs",
      "batch_concurrency",
      "verify_rate",
    ],
  );
  assert.equal(result.targets[0]?.passed, null, "N = 100 is not run in this test");
  assert.ok(labels.includes("verifyAudit throughput"));
  assert.match(formatOverheadTable(result), /\| target \| measured \| result \|/);
});

test("a scenario whose module cannot be loaded is skipped, not failed", async () => {
  const missingModule: string = "leash-bench-no-such-module";
  await assert.rejects(
    // A specifier held in a variable, so that the type checker does not look for the module.
    loadModule(() => import(missingModule), "no-such-module"),
    (error: unknown) =>
      error instanceof ScenarioUnavailable && /no-such-module could not be loaded/.test(error.message),
  );
  const result = await runOverheadBenchmark({ quick: true, steps: [2], scenarios: ["bare-loop", "leash-memory"] });
  assert.deepEqual(
    result.rows.map((row) => row.id),
    ["bare-loop", "leash-memory"],
  );
  assert.equal(overheadScenarios().length, 7);
  assert.equal(overheadScenarios(peerScenarios(leash)).length, 11);
});

test("without peers given, the overhead benchmark measures leash and the floor alone", async () => {
  const result = await runOverheadBenchmark({ quick: true, steps: [2], scenarios: ["bare-loop", "leash-memory"] });
  assert.ok(result.rows.every((row) => row.group !== "peer" && row.skipped === undefined));
  assert.deepEqual(
    result.ratios.map((ratio) => ratio.toPeers),
    [{}],
  );
  assert.doesNotMatch(formatOverheadTable(result), /skipped/);
});
