/**
 * The benchmarks behind `leash bench corpus` and `leash bench overhead`: library functions that return
 * result objects (the `--json` shapes) and format them as Markdown, reporting progress through a
 * callback so that the caller decides how to show it. They ship with the package and use leash through
 * its public API only (the core, and `leash/sqlite` for the SQLite rows), so that they work wherever
 * leash is installed; the comparisons with other frameworks are this repository's bench/, run with tsx.
 */
export { runCorpusBenchmark, defaultCorpus, DEFAULT_CORPUS_SEED, DEFAULT_CORPUS_TASKS } from "./corpus-benchmark.js";
export type { CorpusBenchmarkOptions, CorpusBenchmarkResult, CorpusPlannerResult } from "./corpus-benchmark.js";
export { formatCorpusTable, corpusChecksPassed } from "./corpus-table.js";
export { runOverheadBenchmark, overheadScenarios } from "./overhead-benchmark.js";
export type { OverheadBenchmarkOptions } from "./overhead-benchmark.js";
export type {
  OverheadBenchmarkResult,
  OverheadCell,
  OverheadRow,
  OverheadRatio,
  OverheadTarget,
} from "./overhead-result.js";
export { formatOverheadTable } from "./overhead-table.js";
export { noopAgent, noopTool } from "./leash-scenarios.js";
export type { Scenario, ScenarioCell } from "./scenario.js";
export { machineInfo, describeMachine } from "./machine-info.js";
export type { MachineInfo } from "./machine-info.js";
export type { ProgressCallback } from "./progress.js";
export { chunkMarkdown, DEFAULT_CHUNK_SIZE } from "./markdown-chunks.js";
export type { Chunk } from "./markdown-chunks.js";
export type { ConcurrencyResult } from "./batch-concurrency.js";
export type { VerificationResult } from "./verify-throughput.js";
export type { SqliteFsyncResult } from "./sqlite-fsyncs.js";
