import type { ConcurrencyResult } from "./batch-concurrency.js";
import type { MachineInfo } from "./machine-info.js";
import type { SamplingOptions } from "./measure.js";
import type { Scenario } from "./scenario.js";
import type { SqliteFsyncResult } from "./sqlite-fsyncs.js";
import type { VerificationResult } from "./verify-throughput.js";

// What the overhead benchmark measured, apart from the code that measures it and the code that judges
// it against its targets, which both read it.

/** One target of the overhead benchmark, checked against what was measured. */
export interface OverheadTarget {
  id:
    | "memory_step"
    | "step_growth"
    | "reading_step"
    | "reading_growth"
    | "model_planner_ratio"
    | "sqlite_fsyncs"
    | "batch_concurrency"
    | "verify_rate";
  /** What is required, in words. */
  target: string;
  /** What was measured, in words. */
  measured: string;
  /** Null when it could not be measured here (a size not run, a store not installed). */
  passed: boolean | null;
}

/** One scenario at one size. */
export interface OverheadCell {
  steps: number;
  /** Each timed run, in milliseconds. */
  runsMs: number[];
  medianMs: number;
  /** The median run's time per tool call, in microseconds. */
  perStepUs: number;
  /** The median run's CPU time per tool call, in microseconds (user and system time of the process; less disturbed by other processes than wall-clock time, blind to waits). */
  perStepCpuUs: number;
  /** Untimed runs before these. */
  warmup: number;
  /**
   * Bytes allocated on the JavaScript heap per tool call, over one more untimed run: the heap's
   * growth plus what each garbage collection freed (`v8.GCProfiler`).
   */
  allocatedBytesPerStep: number;
  /** Fsyncs per tool call, where the sink counts them. */
  fsyncsPerStep?: number;
}

/** One scenario: a row of the table. */
export interface OverheadRow {
  id: string;
  label: string;
  group: Scenario["group"];
  cells: OverheadCell[];
  /** Why the scenario did not run, when it did not (a module not installed). */
  skipped?: string;
}

/** Per-step time of a leash row over the floor's and over each peer's, at one size. */
export interface OverheadRatio {
  id: string;
  steps: number;
  toFloor: number | null;
  toPeers: Record<string, number | null>;
}

/** What `runOverheadBenchmark` measured: the `--json` shape of `leash bench overhead`. */
export interface OverheadBenchmarkResult {
  machine: MachineInfo;
  /** The load average (1, 5 and 15 minutes) when the benchmark ended; `machine` has it at the start. */
  loadAverageAtEnd: number[];
  settings: {
    steps: number[];
    sampling: SamplingOptions;
    concurrency: { runs: number; steps: number };
    verifyRecords: number;
    fsyncSteps: [number, number];
  };
  rows: OverheadRow[];
  ratios: OverheadRatio[];
  concurrency: ConcurrencyResult;
  verification: VerificationResult;
  /** Null when `leash/sqlite` could not be loaded; `sqliteNote` says why. */
  sqliteFsyncs: SqliteFsyncResult | null;
  sqliteNote?: string;
  targets: OverheadTarget[];
  durationMs: number;
}
