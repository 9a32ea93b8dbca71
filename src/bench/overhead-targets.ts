import type { OverheadBenchmarkResult, OverheadRow, OverheadTarget } from "./overhead-result.js";

/** The per-step time of a row at a size, in microseconds, or null when it was not measured. */
export function perStepOf(rows: readonly OverheadRow[], id: string, steps: number): number | null {
  return rows.find((row) => row.id === id)?.cells.find((cell) => cell.steps === steps)?.perStepUs ?? null;
}

const MEMORY_STEP_US = 40;
const MEMORY_STEP_AT = 100;
const GROWTH = 2;
const READING_STEP_US = 40;
const MODEL_PLANNER_RATIO = 0.25;
const MODEL_PLANNER_AT = [100, 1000];
const FSYNCS_PER_STEP = 2;
const BATCH_RATIO = 2;
const VERIFY_RATE = 130_000;

const microseconds = (value: number): string => `${value.toFixed(1)} µs`;

/**
 * Checks the targets of the issue against a result (its `targets` aside). A quick run's timings are
 * too short and too cold to judge, so its timing targets are not judged (`passed: null`); the fsync
 * count is judged whatever the sizes.
 */
export function overheadTargets(
  result: Omit<OverheadBenchmarkResult, "targets" | "durationMs">,
  options: { quick: boolean },
): OverheadTarget[] {
  const targets = judgeTargets(result);
  if (!options.quick) return targets;
  return targets.map((target) =>
    target.id === "sqlite_fsyncs"
      ? target
      : { ...target, measured: `${target.measured} (quick run: not judged)`, passed: null },
  );
}

function judgeTargets(result: Omit<OverheadBenchmarkResult, "targets" | "durationMs">): OverheadTarget[] {
  const { rows, settings, concurrency, verification, sqliteFsyncs } = result;
  const smallest = settings.steps[0] as number;
  const largest = settings.steps.at(-1) as number;
  const memory = perStepOf(rows, "leash-memory", MEMORY_STEP_AT);
  const first = perStepOf(rows, "leash-memory", smallest);
  const last = perStepOf(rows, "leash-memory", largest);
  const growth = first === null || last === null || smallest === largest ? null : last / first;
  const reading = perStepOf(rows, "leash-reading-planner", MEMORY_STEP_AT);
  const readingFirst = perStepOf(rows, "leash-reading-planner", smallest);
  const readingLast = perStepOf(rows, "leash-reading-planner", largest);
  const readingGrowth =
    readingFirst === null || readingLast === null || smallest === largest ? null : readingLast / readingFirst;
  return [
    {
      id: "memory_step",
      target: `leash with the memory sink: at most ${MEMORY_STEP_US} µs per step at N = ${MEMORY_STEP_AT}`,
      measured: memory === null ? `not measured (N = ${MEMORY_STEP_AT} not run)` : `${microseconds(memory)} per step`,
      passed: memory === null ? null : memory <= MEMORY_STEP_US,
    },
    {
      id: "step_growth",
      target: `per-step time at N = ${largest} within ${GROWTH}x of N = ${smallest} (memory sink)`,
      measured:
        growth === null
          ? "not measured"
          : `${microseconds(last as number)} / ${microseconds(first as number)} = ${growth.toFixed(2)}x`,
      passed: growth === null ? null : growth <= GROWTH,
    },
    {
      id: "reading_step",
      target: `a rule planner reading state.steps and observations() at every step: at most ${READING_STEP_US} µs per step at N = ${MEMORY_STEP_AT}`,
      measured: reading === null ? `not measured (N = ${MEMORY_STEP_AT} not run)` : `${microseconds(reading)} per step`,
      passed: reading === null ? null : reading <= READING_STEP_US,
    },
    {
      id: "reading_growth",
      target: `the reading rule planner: per-step time at N = ${largest} within ${GROWTH}x of N = ${smallest}`,
      measured:
        readingGrowth === null
          ? "not measured"
          : `${microseconds(readingLast as number)} / ${microseconds(readingFirst as number)} = ${readingGrowth.toFixed(2)}x`,
      passed: readingGrowth === null ? null : readingGrowth <= GROWTH,
    },
    ...MODEL_PLANNER_AT.map((count): OverheadTarget => {
      const own = perStepOf(rows, "leash-model-planner", count);
      const peer = perStepOf(rows, "ai-sdk", count);
      const target = `modelPlanner over aiSdkModel: at most ${MODEL_PLANNER_RATIO}x generateText's per-step time at N = ${count} (same mock model)`;
      if (own === null || peer === null)
        return {
          id: "model_planner_ratio",
          target,
          measured: "not measured (needs bench/overhead.ts and `ai`)",
          passed: null,
        };
      return {
        id: "model_planner_ratio",
        target,
        measured: `${microseconds(own)} / ${microseconds(peer)} = ${(own / peer).toFixed(3)}x`,
        passed: own / peer <= MODEL_PLANNER_RATIO,
      };
    }),
    {
      id: "sqlite_fsyncs",
      target: `SQLite store: at most ${FSYNCS_PER_STEP} fsyncs per step`,
      measured:
        sqliteFsyncs === null
          ? `not measured (${result.sqliteNote ?? "leash/sqlite unavailable"})`
          : `${sqliteFsyncs.fsyncsPerStep.toFixed(2)} per step (counted by ${sqliteFsyncs.method === "strace" ? "strace" : "the store's commits"})`,
      passed: sqliteFsyncs === null ? null : sqliteFsyncs.fsyncsPerStep <= FSYNCS_PER_STEP,
    },
    {
      id: "batch_concurrency",
      target: `fsync "batch" with ${concurrency.runs} concurrent runs within ${BATCH_RATIO}x of fsync "none"`,
      measured: `${concurrency.batch.medianMs.toFixed(0)} ms / ${concurrency.none.medianMs.toFixed(0)} ms = ${concurrency.ratio.toFixed(2)}x`,
      passed: concurrency.ratio <= BATCH_RATIO,
    },
    {
      id: "verify_rate",
      target: `verifyAudit: at least ${VERIFY_RATE.toLocaleString("en-US")} records per second`,
      measured: `${Math.round(verification.verifyPerSecond).toLocaleString("en-US")} records per second`,
      passed: verification.verifyPerSecond >= VERIFY_RATE,
    },
  ];
}
