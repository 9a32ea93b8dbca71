import { join } from "node:path";
import type { FsyncMode } from "../index.js";
import { JsonlAuditSink } from "../index.js";
import { noopAgent } from "./leash-scenarios.js";
import type { SamplingOptions } from "./measure.js";
import { median, wantsAnotherRun } from "./measure.js";

/** Concurrent runs on one JSONL sink, with `fsync: "none"` and with `fsync: "batch"`. */
export interface ConcurrencyResult {
  /** Runs at once. */
  runs: number;
  /** Tool calls per run. */
  steps: number;
  /** Wall-clock time of all the runs, per fsync mode: each sample, and their median (ms). */
  none: { runsMs: number[]; medianMs: number };
  batch: { runsMs: number[]; medianMs: number; fsyncsPerStep: number };
  /** batch's median over none's. */
  ratio: number;
}

/**
 * Times `runs` concurrent runs of `steps` no-op calls each, through one agent and one JSONL sink, with
 * fsync `none` and `batch`, alternating the modes sample by sample so that drift hits both alike. With
 * `batch`, appends that wait together share one fsync (group commit).
 */
export async function measureBatchConcurrency(options: {
  runs: number;
  steps: number;
  workspace: string;
  sampling: SamplingOptions;
}): Promise<ConcurrencyResult> {
  const { runs, steps, workspace, sampling } = options;
  const open = (fsync: FsyncMode) => {
    const sink = new JsonlAuditSink(join(workspace, `concurrent-${fsync}.jsonl`), { fsync });
    return { sink, agent: noopAgent(steps, { audit: sink }) };
  };
  const modes = { none: open("none"), batch: open("batch") };
  const sample = async (mode: "none" | "batch"): Promise<number> => {
    const { agent } = modes[mode];
    const started = performance.now();
    const states = await Promise.all(Array.from({ length: runs }, () => agent.run("call the no-op tool")));
    const elapsed = performance.now() - started;
    const calls = states.reduce((sum, state) => sum + state.toolCalls, 0);
    if (calls !== runs * steps)
      throw new Error(`${runs} concurrent runs (fsync ${mode}) made ${calls} tool calls instead of ${runs * steps}.`);
    return elapsed;
  };
  try {
    for (let index = 0; index < sampling.warmup; index++) {
      await sample("none");
      await sample("batch");
    }
    const fsyncsBefore = modes.batch.sink.fsyncCount;
    const none: number[] = [];
    const batch: number[] = [];
    let spent = 0;
    while (wantsAnotherRun(sampling, none.length, spent)) {
      const noneMs = await sample("none");
      const batchMs = await sample("batch");
      none.push(noneMs);
      batch.push(batchMs);
      spent += noneMs + batchMs;
    }
    const fsyncs = modes.batch.sink.fsyncCount - fsyncsBefore;
    const noneMedian = median(none);
    const batchMedian = median(batch);
    return {
      runs,
      steps,
      none: { runsMs: none, medianMs: noneMedian },
      batch: { runsMs: batch, medianMs: batchMedian, fsyncsPerStep: fsyncs / (batch.length * runs * steps) },
      ratio: batchMedian / noneMedian,
    };
  } finally {
    await modes.none.sink.close();
    await modes.batch.sink.close();
  }
}
