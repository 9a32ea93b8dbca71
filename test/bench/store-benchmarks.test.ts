// The store benchmarks (bench/concurrency.ts, bench/listings.ts) run as the programs they are, in
// child processes, on the built package: each row says what it measured or why it could not. No
// figure is checked, only that the programs measure, report failures and never hang.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { requireBuiltBin } from "../cli/cli-helpers.js";
import { nodeArguments } from "../helpers/node-child.js";
import { repositoryRoot } from "../helpers/repository-root.js";

/** Runs a benchmark program with `--no-save --json` and returns its rows. */
function runBenchmark(program: string, args: string[], env: Record<string, string> = {}): unknown[] {
  requireBuiltBin();
  const ran = spawnSync(
    process.execPath,
    [...nodeArguments(join(repositoryRoot, "bench", program)), ...args, "--no-save", "--json"],
    { cwd: repositoryRoot, encoding: "utf8", env: { ...process.env, ...env }, timeout: 240_000 },
  );
  assert.equal(ran.status, 0, ran.stderr);
  return JSON.parse(ran.stdout) as unknown[];
}

interface ConcurrencyRow {
  store: string;
  failure: string | undefined;
  samples: { completed: number; stepsPerSecond: number }[];
}

test("the concurrency benchmark measures each store, and a store it cannot open gives a row saying why", () => {
  const rows = runBenchmark("concurrency.ts", ["--k", "3", "--repetitions", "1"], {
    // Nothing listens on port 1: the PostgreSQL store cannot connect.
    DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
  }) as ConcurrencyRow[];
  assert.deepEqual(
    rows.map((row) => row.store),
    ["none", "sqlite", "postgres"],
  );
  for (const row of rows.slice(0, 2)) {
    assert.equal(row.failure, undefined);
    assert.equal(row.samples[0]?.completed, 3);
    assert.ok((row.samples[0]?.stepsPerSecond ?? 0) > 0);
  }
  assert.match(rows[2]?.failure ?? "", /^the store could not be opened: store_failed: /);
});

test("a concurrency sample past its deadline is cancelled and reported, never waited for", () => {
  // Each run asks its model 6 times, each answer at least 50 ms away: no run can end within 0.05 s.
  const rows = runBenchmark("concurrency.ts", [
    "--k",
    "20",
    "--repetitions",
    "2",
    "--stores",
    "none,sqlite",
    "--deadline",
    "0.05",
  ]) as ConcurrencyRow[];
  for (const row of rows) {
    assert.match(row.failure ?? "", /^timed out after 0\.05 s: 0 of 20 runs had ended$/);
    // A store that timed out is not tried again.
    assert.equal(row.samples.length, 1);
  }
});

test("the listings benchmark times every listing of a SQLite store through the real inbox", () => {
  const rows = runBenchmark("listings.ts", [
    "--runs",
    "50,60",
    "--stores",
    "sqlite",
    "--repetitions",
    "1",
    "--idle",
    "0.2",
  ]) as {
    runs: number;
    list?: number;
    inboxPage?: number;
    apiRuns?: number;
    watcherPoll?: number;
    peakRssMiB?: number;
    problems: string[];
  }[];
  assert.deepEqual(
    rows.map((row) => row.runs),
    [50, 60],
  );
  for (const row of rows) {
    for (const measure of [row.list, row.inboxPage, row.apiRuns, row.watcherPoll, row.peakRssMiB])
      assert.ok(typeof measure === "number" && measure > 0, JSON.stringify(row));
    assert.ok(!row.problems.some((problem) => problem.startsWith("leash serve")), row.problems.join("; "));
  }
});
