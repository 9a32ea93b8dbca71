import { GCProfiler, getHeapStatistics } from "node:v8";
import type { ScenarioCell } from "./scenario.js";

/** How many runs a cell gets. */
export interface SamplingOptions {
  /** Untimed runs first, so that the code is compiled and the caches are warm. */
  warmup: number;
  /**
   * Untimed runs go on until they took this long too, since V8 optimizes a function only after many
   * calls: two runs of ten steps leave the code cold.
   */
  warmupMs: number;
  /** This many timed runs, unless the budget runs out first. */
  runs: number;
  /** At least this many timed runs, whatever the budget. */
  minRuns: number;
  /** After `minRuns`, no further run starts once the timed runs took this long in all. */
  budgetMs: number;
  /**
   * Short runs go on past `runs` until the timed runs took this long (up to {@link MAX_RUNS}): on a
   * busy machine a median of many short runs is far steadier than one of seven.
   */
  sampleMs: number;
}

/** The most timed runs of one cell. */
const MAX_RUNS = 201;

/** Whether another timed run should start, after `count` runs that took `spentMs` in all. */
export function wantsAnotherRun(options: SamplingOptions, count: number, spentMs: number): boolean {
  if (count < options.minRuns) return true;
  if (spentMs >= options.budgetMs) return false;
  if (count < options.runs) return true;
  return spentMs < options.sampleMs && count < MAX_RUNS;
}

/** The timed runs of one cell. */
interface Sample {
  /** Each timed run's wall-clock time, in milliseconds, in the order run. */
  runsMs: number[];
  /** Their median. */
  medianMs: number;
  /**
   * The median of the runs' CPU time (user and system, every thread of the process), in milliseconds:
   * less disturbed than wall-clock time by other processes on a busy machine, but blind to waits.
   */
  medianCpuMs: number;
  /** How many untimed runs came first. */
  warmupRuns: number;
  /** Fsyncs per tool call during the timed runs, where the cell counts them. */
  fsyncsPerStep?: number;
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("The median of no values is undefined.");
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Times a cell's runs: warm-up runs first, then timed runs until `runs`, or `minRuns` once the budget
 * is spent. Only the run itself is timed, not what `prepare` builds for it. Every run must make
 * exactly `steps` tool calls, else the scenario is wrong and this throws.
 */
export async function sampleCell(
  cell: ScenarioCell,
  steps: number,
  label: string,
  options: SamplingOptions,
): Promise<Sample> {
  const cpuMs: number[] = [];
  const once = async (): Promise<number> => {
    const run = await cell.prepare();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const calls = await run();
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    if (calls !== steps) throw new Error(`${label} made ${calls} tool calls instead of ${steps}.`);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    return elapsed;
  };
  let warming = 0;
  let warmupRuns = 0;
  while (warmupRuns < options.warmup || (options.warmup > 0 && warming < options.warmupMs)) {
    warming += await once();
    warmupRuns++;
  }
  cpuMs.length = 0;
  const fsyncsBefore = cell.fsyncCount?.();
  const runsMs: number[] = [];
  let spent = 0;
  while (wantsAnotherRun(options, runsMs.length, spent)) {
    const elapsed = await once();
    runsMs.push(elapsed);
    spent += elapsed;
  }
  const sample: Sample = { runsMs, medianMs: median(runsMs), medianCpuMs: median(cpuMs), warmupRuns };
  const fsyncsAfter = cell.fsyncCount?.();
  if (fsyncsBefore !== undefined && fsyncsAfter !== undefined)
    sample.fsyncsPerStep = (fsyncsAfter - fsyncsBefore) / (runsMs.length * steps);
  return sample;
}

/**
 * The bytes one run of a cell allocates on the JavaScript heap, per tool call: the heap's growth over
 * the run plus what every garbage collection during it freed, as `v8.GCProfiler` reports the used heap
 * before and after each collection. Exact up to what is still unreachable but not yet collected at
 * either end (the run starts and ends without a forced collection), which is why it is taken over a
 * whole run. Buffers' contents outside the heap are not counted. One untimed run, after the timed ones.
 */
export async function allocatedPerStep(cell: ScenarioCell, steps: number): Promise<number> {
  const run = await cell.prepare();
  const profiler = new GCProfiler();
  const before = getHeapStatistics().used_heap_size;
  profiler.start();
  await run();
  const { statistics } = profiler.stop();
  const after = getHeapStatistics().used_heap_size;
  let freed = 0;
  for (const collection of statistics)
    freed += collection.beforeGC.heapStatistics.usedHeapSize - collection.afterGC.heapStatistics.usedHeapSize;
  return Math.max(0, after - before + freed) / steps;
}
