import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { measureBatchConcurrency } from "./batch-concurrency.js";
import { leashScenarios } from "./leash-scenarios.js";
import { leashReadingPlanner } from "./reading-planner.js";
import { machineInfo } from "./machine-info.js";
import type { SamplingOptions } from "./measure.js";
import { allocatedPerStep, sampleCell } from "./measure.js";
import type { OverheadBenchmarkResult, OverheadCell, OverheadRatio, OverheadRow } from "./overhead-result.js";
import { overheadTargets, perStepOf } from "./overhead-targets.js";
import type { ProgressCallback } from "./progress.js";
import { noProgress } from "./progress.js";
import type { Scenario } from "./scenario.js";
import { bareLoop, ScenarioUnavailable } from "./scenario.js";
import type { SqliteFsyncResult } from "./sqlite-fsyncs.js";
import { countSqliteFsyncs } from "./sqlite-fsyncs.js";
import { measureVerification } from "./verify-throughput.js";

/** Options of {@link runOverheadBenchmark}; every one has a default, and `quick` shrinks them for tests. */
export interface OverheadBenchmarkOptions {
  /** Tool calls per run; default 10, 100 and 1000 (quick: 5 and 20). */
  steps?: number[];
  /** At most this many timed runs per cell; default 7 (quick: 2). */
  runs?: number;
  /** At least this many, whatever the budget; default 3 (quick: 1). */
  minRuns?: number;
  /** Untimed runs before the first size's timed runs; default 2 (quick: 1). */
  warmup?: number;
  /** ... and until they took this long; default 500 ms (quick: 20 ms). Later sizes get one run. */
  warmupMs?: number;
  /** After `minRuns`, a cell starts no run once its timed runs took this long; default 4000 ms. */
  budgetMs?: number;
  /** Short runs go on past `runs` until they took this long; default 300 ms (quick: 0). */
  sampleMs?: number;
  /** Concurrent runs and their calls each for the batch-versus-none check; default 32 runs of 100. */
  concurrency?: { runs: number; steps: number };
  /** At least this many records in the trail that is verified; default 30,000 (quick: 300). */
  verifyRecords?: number;
  /**
   * The short and long runs whose difference gives the SQLite store's fsyncs per step; default 10 and
   * the largest N + 10, since the count grows with the run (WAL checkpoints of an ever larger state).
   */
  fsyncSteps?: [number, number];
  /**
   * Scenarios that need this repository's dev dependencies, after leash's own rows: other frameworks
   * (group `peer`) and leash over them (`modelPlanner` over the AI SDK's mock model). None by default:
   * the shipped `leash bench overhead` measures leash alone; bench/overhead.ts adds these.
   */
  peers?: Scenario[];
  /** Only the scenarios with these ids (`bare-loop`, `leash-memory`, `openai-agents`, ...). */
  scenarios?: string[];
  /** Small sizes and few runs, for tests: the structure and the checks, not the timings. */
  quick?: boolean;
  /** Where scenarios write their files; default a new temporary folder, removed at the end. */
  workspace?: string;
  onProgress?: ProgressCallback;
}

/**
 * Every scenario, in table order: the floor, leash's sinks and store, the rule planner that reads the
 * history, then the scenarios given (the peers).
 */
export function overheadScenarios(peers: readonly Scenario[] = []): Scenario[] {
  return [bareLoop, ...leashScenarios(), leashReadingPlanner, ...peers];
}

// A run expected to take longer than this warms itself up: it gets no untimed run before it.
const SELF_WARMING_MS = 1000;

/**
 * What bounding and auditing cost per step, side by side: N no-op tool calls through leash (memory
 * sink, JSONL sink in each fsync mode, SQLite store), through the peers given (each with its own
 * scripted model), and through a bare loop (the floor); then 32 concurrent runs with
 * fsync `batch` against `none`, `verifyAudit`'s throughput beside canonicalization + SHA-256, and the
 * SQLite store's fsyncs per step. Medians of several timed runs after warm-up.
 *
 * @example
 * const result = await runOverheadBenchmark({ onProgress: (done, total, label) => bar.update(done, { label }) });
 * console.log(formatOverheadTable(result));
 */
export async function runOverheadBenchmark(options: OverheadBenchmarkOptions = {}): Promise<OverheadBenchmarkResult> {
  const started = performance.now();
  const machine = machineInfo();
  const quick = options.quick === true;
  const steps = [...(options.steps ?? (quick ? [5, 20] : [10, 100, 1000]))].sort((a, b) => a - b);
  if (steps.length === 0 || !steps.every((count) => Number.isSafeInteger(count) && count > 0)) {
    throw new RangeError("Expected `steps` to be positive integers.");
  }
  const sampling: SamplingOptions = {
    warmup: options.warmup ?? (quick ? 1 : 2),
    warmupMs: options.warmupMs ?? (quick ? 20 : 500),
    runs: options.runs ?? (quick ? 2 : 7),
    minRuns: options.minRuns ?? (quick ? 1 : 3),
    budgetMs: options.budgetMs ?? (quick ? 200 : 4000),
    sampleMs: options.sampleMs ?? (quick ? 0 : 300),
  };
  const concurrency = options.concurrency ?? (quick ? { runs: 4, steps: 10 } : { runs: 32, steps: 100 });
  const verifyRecords = options.verifyRecords ?? (quick ? 300 : 30_000);
  const fsyncSteps = options.fsyncSteps ?? (quick ? [2, 12] : [10, (steps.at(-1) as number) + 10]);
  const onProgress = options.onProgress ?? noProgress;
  const scenarios = overheadScenarios(options.peers).filter(
    (scenario) => options.scenarios === undefined || options.scenarios.includes(scenario.id),
  );
  const workspace = options.workspace ?? mkdtempSync(join(tmpdir(), "leash-bench-"));

  const total = scenarios.length * steps.length + 3;
  let done = 0;
  const rows: OverheadRow[] = scenarios.map((scenario) => ({
    id: scenario.id,
    label: scenario.label,
    group: scenario.group,
    cells: [],
  }));
  try {
    for (const [position, count] of steps.entries()) {
      for (const [index, scenario] of scenarios.entries()) {
        const row = rows[index] as OverheadRow;
        onProgress(done, total, `${scenario.label}, N = ${count}`);
        if (row.skipped === undefined) {
          const previous = row.cells.at(-1);
          const projectedMs = previous === undefined ? 0 : (previous.perStepUs * count) / 1000;
          const warmup =
            position === 0 ? sampling.warmup : projectedMs > SELF_WARMING_MS ? 0 : Math.min(1, sampling.warmup);
          const warmupMs = position === 0 ? sampling.warmupMs : 0;
          try {
            row.cells.push(await measureScenario(scenario, count, workspace, { ...sampling, warmup, warmupMs }));
          } catch (error) {
            if (!(error instanceof ScenarioUnavailable)) throw error;
            row.skipped = error.message;
          }
        }
        done++;
      }
    }
    onProgress(done, total, `${concurrency.runs} concurrent runs, fsync batch and none`);
    const concurrencyResult = await measureBatchConcurrency({
      ...concurrency,
      workspace,
      sampling: { ...sampling, warmup: 1, runs: Math.min(sampling.runs, 5), sampleMs: 0 },
    });
    onProgress(++done, total, "verifyAudit throughput");
    const verification = await measureVerification({
      records: verifyRecords,
      steps: Math.min(1000, Math.max(...steps)),
      sampling: { ...sampling, budgetMs: 1000, sampleMs: 0 },
    });
    onProgress(++done, total, "SQLite fsyncs per step");
    let sqliteFsyncs: SqliteFsyncResult | null = null;
    let sqliteNote: string | undefined;
    const sqliteRow = rows.find((row) => row.id === "leash-sqlite");
    if (sqliteRow === undefined) {
      sqliteNote = "leash-sqlite was not among the scenarios run";
    } else if (sqliteRow.skipped !== undefined) {
      sqliteNote = sqliteRow.skipped;
    } else {
      try {
        sqliteFsyncs = await countSqliteFsyncs({ workspace, steps: fsyncSteps });
      } catch (error) {
        if (!(error instanceof ScenarioUnavailable)) throw error;
        sqliteNote = error.message;
      }
    }
    onProgress(++done, total, "done");
    const result: OverheadBenchmarkResult = {
      machine,
      loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100),
      settings: { steps, sampling, concurrency, verifyRecords, fsyncSteps },
      rows,
      ratios: ratiosOf(rows, steps),
      concurrency: concurrencyResult,
      verification,
      sqliteFsyncs,
      targets: [],
      durationMs: 0,
    };
    if (sqliteNote !== undefined) result.sqliteNote = sqliteNote;
    result.targets = overheadTargets(result, { quick });
    result.durationMs = performance.now() - started;
    return result;
  } finally {
    if (options.workspace === undefined) rmSync(workspace, { recursive: true, force: true });
  }
}

async function measureScenario(
  scenario: Scenario,
  steps: number,
  workspace: string,
  sampling: SamplingOptions,
): Promise<OverheadCell> {
  const cell = await scenario.open(steps, workspace);
  try {
    const sample = await sampleCell(cell, steps, `${scenario.label} (N = ${steps})`, sampling);
    const result: OverheadCell = {
      steps,
      runsMs: sample.runsMs,
      medianMs: sample.medianMs,
      perStepUs: (sample.medianMs * 1000) / steps,
      perStepCpuUs: (sample.medianCpuMs * 1000) / steps,
      warmup: sample.warmupRuns,
      allocatedBytesPerStep: await allocatedPerStep(cell, steps),
    };
    if (sample.fsyncsPerStep !== undefined) result.fsyncsPerStep = sample.fsyncsPerStep;
    return result;
  } finally {
    await cell.close();
  }
}

function ratiosOf(rows: readonly OverheadRow[], steps: readonly number[]): OverheadRatio[] {
  const divide = (top: number | null, bottom: number | null): number | null =>
    top === null || bottom === null || bottom === 0 ? null : top / bottom;
  const peers = rows.filter((row) => row.group === "peer");
  const floor = rows.find((row) => row.group === "floor");
  const ratios: OverheadRatio[] = [];
  for (const row of rows.filter((candidate) => candidate.group === "leash" && candidate.skipped === undefined)) {
    for (const count of steps) {
      const own = perStepOf(rows, row.id, count);
      const toPeers: Record<string, number | null> = {};
      for (const peer of peers) toPeers[peer.id] = divide(own, perStepOf(rows, peer.id, count));
      ratios.push({
        id: row.id,
        steps: count,
        toFloor: floor === undefined ? null : divide(own, perStepOf(rows, floor.id, count)),
        toPeers,
      });
    }
  }
  return ratios;
}
