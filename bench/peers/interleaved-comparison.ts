/**
 * The overhead measured as an outside harness measures it: one process, the frameworks interleaved
 * run by run (each round runs every contestant once, in an order that turns by one each round, so
 * that no contestant always follows the same one), a handful of runs of N steps each, and no warm-up
 * beyond the `warmup` rounds asked for (default none). The medians therefore include what the first
 * runs cost while V8 is still compiling, and what one framework's garbage costs the next: what a
 * user timing leash beside another framework in one script would see.
 */
import { median } from "../../src/bench/measure.js";
import type { Contestant } from "./outsider-contestants.js";

/** Options of {@link runInterleaved}. */
export interface InterleavedOptions {
  /** Tool calls per run; default 100. */
  steps: number;
  /** Timed rounds (each runs every contestant once); default 30. */
  runs: number;
  /** Untimed rounds first; default 0, as an outsider does. */
  warmup: number;
}

/** One contestant's timed runs. */
export interface InterleavedRow {
  id: string;
  label: string;
  group: "leash" | "peer";
  /** Wall-clock time of each timed run, in milliseconds, in the order run. */
  runsMs: number[];
  /** CPU time (user and system) of each timed run, in milliseconds. */
  cpuMs: number[];
  /** Median wall-clock time per step, µs. */
  perStepUs: number;
  /** Median CPU time per step, µs. */
  perStepCpuUs: number;
  /** Median per step of the first and of the last third of the runs, µs: how much warming up weighs. */
  firstThirdUs: number;
  lastThirdUs: number;
}

/** What {@link runInterleaved} measured. */
export interface InterleavedResult {
  settings: InterleavedOptions;
  rows: InterleavedRow[];
  /** The peer the ratios divide by. */
  peer: string;
  /**
   * Per leash row: the ratio of the wall-clock medians, the median of each round's own ratio, and the
   * ratio of the CPU medians (steadier on a shared machine).
   */
  ratios: { id: string; ofMedians: number; perRound: number; ofCpuMedians: number }[];
  durationMs: number;
}

/** Runs the contestants interleaved, round by round. */
export async function runInterleaved(
  contestants: readonly Contestant[],
  options: InterleavedOptions,
  onRound: (done: number, total: number) => void = () => {},
): Promise<InterleavedResult> {
  const started = performance.now();
  const { steps, runs, warmup } = options;
  const rows: InterleavedRow[] = contestants.map((contestant) => ({
    id: contestant.id,
    label: contestant.label,
    group: contestant.group,
    runsMs: [],
    cpuMs: [],
    perStepUs: 0,
    perStepCpuUs: 0,
    firstThirdUs: 0,
    lastThirdUs: 0,
  }));
  for (let round = 0; round < warmup + runs; round++) {
    onRound(round, warmup + runs);
    for (let turn = 0; turn < contestants.length; turn++) {
      const index = (round + turn) % contestants.length;
      const contestant = contestants[index] as Contestant;
      const run = contestant.prepare(steps);
      const cpuBefore = process.cpuUsage();
      const before = performance.now();
      const calls = await run();
      const elapsed = performance.now() - before;
      const cpu = process.cpuUsage(cpuBefore);
      if (calls !== steps) throw new Error(`${contestant.label} made ${calls} tool calls instead of ${steps}.`);
      if (round < warmup) continue;
      const row = rows[index] as InterleavedRow;
      row.runsMs.push(elapsed);
      row.cpuMs.push((cpu.user + cpu.system) / 1000);
    }
  }
  onRound(warmup + runs, warmup + runs);
  const perStep = (values: readonly number[]): number => (median(values) * 1000) / steps;
  const third = Math.max(1, Math.floor(runs / 3));
  for (const row of rows) {
    row.perStepUs = perStep(row.runsMs);
    row.perStepCpuUs = perStep(row.cpuMs);
    row.firstThirdUs = perStep(row.runsMs.slice(0, third));
    row.lastThirdUs = perStep(row.runsMs.slice(-third));
  }
  const peer = rows.find((row) => row.group === "peer");
  const ratios =
    peer === undefined
      ? []
      : rows
          .filter((row) => row.group === "leash")
          .map((row) => ({
            id: row.id,
            ofMedians: row.perStepUs / peer.perStepUs,
            perRound: median(row.runsMs.map((ms, round) => ms / (peer.runsMs[round] as number))),
            ofCpuMedians: row.perStepCpuUs / peer.perStepCpuUs,
          }));
  return { settings: options, rows, peer: peer?.id ?? "", ratios, durationMs: performance.now() - started };
}

/** The goals the interleaved comparison is held to. */
export const INTERLEAVED_GOALS = { modelRatio: 0.25, ruleUs: 40 } as const;

/** The result as Markdown: the table, the ratios and the goals. */
export function formatInterleaved(result: InterleavedResult): string {
  const { steps, runs, warmup } = result.settings;
  const format = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
  const lines = [
    `${runs} rounds of N = ${steps} no-op tool calls per contestant, interleaved run by run in one process ` +
      `(the order turns by one each round), ${warmup === 0 ? "no warm-up" : `after ${warmup} untimed rounds`}; ` +
      "every agent and model built afresh for each run, untimed.",
    "",
    "| contestant | median µs/step | CPU µs/step | first third | last third |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...result.rows.map(
      (row) =>
        `| ${row.label} | ${format(row.perStepUs)} | ${format(row.perStepCpuUs)} | ${format(row.firstThirdUs)} | ${format(row.lastThirdUs)} |`,
    ),
    "",
  ];
  const peer = result.rows.find((row) => row.id === result.peer);
  if (peer !== undefined) {
    lines.push(
      `| leash over ${peer.label} | ratio of the medians | median of each round's ratio | ratio of the CPU medians |`,
      "| --- | ---: | ---: | ---: |",
    );
    for (const ratio of result.ratios) {
      const row = result.rows.find((candidate) => candidate.id === ratio.id);
      lines.push(
        `| ${row?.label ?? ratio.id} | ${ratio.ofMedians.toFixed(3)}x | ${ratio.perRound.toFixed(3)}x | ${ratio.ofCpuMedians.toFixed(3)}x |`,
      );
    }
    lines.push("");
  }
  lines.push("| goal | measured | result |", "| --- | --- | :---: |");
  const model = result.ratios.find((ratio) => ratio.id === "leash-plain-model");
  if (model !== undefined) {
    lines.push(
      `| modelPlanner over a plain client: at most ${INTERLEAVED_GOALS.modelRatio}x the AI SDK's time per step | ` +
        `${model.ofMedians.toFixed(3)}x (CPU ${model.ofCpuMedians.toFixed(3)}x) | ${model.ofMedians <= INTERLEAVED_GOALS.modelRatio ? "pass" : "miss"} |`,
    );
  }
  const rule = result.rows.find((row) => row.id === "leash-rule");
  if (rule !== undefined) {
    lines.push(
      `| rule planner: at most ${INTERLEAVED_GOALS.ruleUs} µs per step | ${format(rule.perStepUs)} µs (CPU ${format(rule.perStepCpuUs)} µs) | ` +
        `${rule.perStepUs <= INTERLEAVED_GOALS.ruleUs ? "pass" : "miss"} |`,
    );
  }
  lines.push("", `Total time: ${(result.durationMs / 1000).toFixed(1)} s.`, "");
  return lines.join("\n");
}
