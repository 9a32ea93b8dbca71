import { describeMachine } from "./machine-info.js";
import type { OverheadBenchmarkResult, OverheadRow } from "./overhead-result.js";

const formatUs = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(3);
const formatRatio = (value: number | null): string =>
  value === null ? "–" : value >= 100 ? `${value.toFixed(0)}x` : `${value.toFixed(2)}x`;
const rate = (value: number): string => Math.round(value).toLocaleString("en-US");
const verdict = (passed: boolean | null): string => (passed === null ? "not measured" : passed ? "pass" : "**miss**");

function stepsTable(result: OverheadBenchmarkResult): string[] {
  const { steps } = result.settings;
  const hasFsyncs = result.rows.some((row) => row.cells.some((cell) => cell.fsyncsPerStep !== undefined));
  const header = [
    "scenario",
    ...steps.map((count) => `N = ${count}`),
    ...(hasFsyncs ? [`fsyncs/step (N = ${steps.at(-1)})`] : []),
  ];
  const lines = [
    `| ${header.join(" | ")} |`,
    `| --- | ${header
      .slice(1)
      .map(() => "---:")
      .join(" | ")} |`,
  ];
  for (const row of result.rows) {
    const cells = steps.map((count) => {
      if (row.skipped !== undefined) return "skipped";
      const cell = row.cells.find((candidate) => candidate.steps === count);
      return cell === undefined ? "–" : `${formatUs(cell.perStepUs)} (${cell.runsMs.length})`;
    });
    const fsyncs = row.cells.at(-1)?.fsyncsPerStep;
    lines.push(
      `| ${row.label} | ${cells.join(" | ")} |${hasFsyncs ? ` ${fsyncs === undefined ? "" : fsyncs.toFixed(2)} |` : ""}`,
    );
  }
  return lines;
}

/** One row per scenario that ran, one column per N: each cell as `show` gives it. */
function perStepTable(result: OverheadBenchmarkResult, show: (cell: OverheadRow["cells"][number]) => string): string[] {
  const { steps } = result.settings;
  const lines = [
    `| scenario | ${steps.map((count) => `N = ${count}`).join(" | ")} |`,
    `| --- | ${steps.map(() => "---:").join(" | ")} |`,
  ];
  for (const row of result.rows.filter((candidate) => candidate.skipped === undefined)) {
    const cells = steps.map((count) => {
      const cell = row.cells.find((candidate) => candidate.steps === count);
      return cell === undefined ? "–" : show(cell);
    });
    lines.push(`| ${row.label} | ${cells.join(" | ")} |`);
  }
  return lines;
}

function cpuTable(result: OverheadBenchmarkResult): string[] {
  return perStepTable(result, (cell) => formatUs(cell.perStepCpuUs));
}

const formatKb = (bytes: number): string => {
  const kb = bytes / 1024;
  return kb >= 100 ? kb.toFixed(0) : kb >= 1 ? kb.toFixed(1) : kb.toFixed(2);
};

function allocationTable(result: OverheadBenchmarkResult): string[] {
  return perStepTable(result, (cell) => formatKb(cell.allocatedBytesPerStep));
}

function ratioTable(result: OverheadBenchmarkResult): string[] {
  const peers = result.rows.filter((row) => row.group === "peer");
  const labelOf = (id: string): string => result.rows.find((row) => row.id === id)?.label ?? id;
  const header = ["leash", "N", "over the floor", ...peers.map((peer) => `over ${peer.label}`)];
  const lines = [
    `| ${header.join(" | ")} |`,
    `| --- | ---: | ${header
      .slice(2)
      .map(() => "---:")
      .join(" | ")} |`,
  ];
  for (const ratio of result.ratios) {
    const cells = peers.map((peer) => formatRatio(ratio.toPeers[peer.id] ?? null));
    lines.push(`| ${[labelOf(ratio.id), String(ratio.steps), formatRatio(ratio.toFloor), ...cells].join(" | ")} |`);
  }
  return lines;
}

function skippedNotes(rows: readonly OverheadRow[]): string[] {
  return rows.filter((row) => row.skipped !== undefined).map((row) => `- ${row.label} skipped: ${row.skipped}.`);
}

/**
 * The overhead benchmark as Markdown: per-step times of every scenario, ratios of leash's to the
 * floor's and the peers', the concurrency, verification and fsync measurements, and the targets.
 */
export function formatOverheadTable(result: OverheadBenchmarkResult): string {
  const { settings, concurrency, verification, sqliteFsyncs } = result;
  const { sampling } = settings;
  const lines = [
    `Machine: ${describeMachine(result.machine)}.`,
    `Median of the timed runs of each cell (their count in parentheses: ${sampling.runs}, or more for short runs until ` +
      `${sampling.sampleMs} ms are spent, or ${sampling.minRuns} for long ones once ${(sampling.budgetMs / 1000).toFixed(1)} s are), ` +
      `after untimed warm-up runs; a no-op tool, N tool calls per run.`,
    "",
    "Per-step time, µs (wall-clock time of a whole run over N):",
    "",
    ...stepsTable(result),
    ...skippedNotes(result.rows),
    "",
    "CPU time per step, µs (user and system time of the process over N; less disturbed by other processes, blind to fsync waits):",
    "",
    ...cpuTable(result),
    "",
    "Memory allocated per step, KiB (JavaScript heap over one more untimed run: its growth plus what every garbage collection freed, from v8.GCProfiler; over N):",
    "",
    ...allocationTable(result),
    "",
    "Ratios of leash's per-step time (wall clock):",
    "",
    ...ratioTable(result),
    "",
    `${concurrency.runs} concurrent runs of ${concurrency.steps} calls on one JSONL sink (median of ${concurrency.none.runsMs.length}):`,
    "",
    "| fsync | wall time | per step | fsyncs per step |",
    "| --- | ---: | ---: | ---: |",
    `| none | ${concurrency.none.medianMs.toFixed(0)} ms | ${formatUs((concurrency.none.medianMs * 1000) / (concurrency.runs * concurrency.steps))} µs | 0 |`,
    `| batch | ${concurrency.batch.medianMs.toFixed(0)} ms | ${formatUs((concurrency.batch.medianMs * 1000) / (concurrency.runs * concurrency.steps))} µs | ${concurrency.batch.fsyncsPerStep.toFixed(3)} |`,
    "",
    `Verification of a sound trail of ${rate(verification.records)} records (${verification.runs} runs; ${verification.problems} problems found):`,
    "",
    "| what | records per second |",
    "| --- | ---: |",
    `| verifyAudit | ${rate(verification.verifyPerSecond)} |`,
    `| raw RFC 8785 canonicalization + SHA-256 of every record, no checks (the limit) | ${rate(verification.canonicalizeAndHashPerSecond)} |`,
    `| SHA-256 alone, of canonical texts made beforehand | ${rate(verification.hashOnlyPerSecond)} |`,
    "",
    sqliteFsyncs === null
      ? `SQLite fsyncs: not measured (${result.sqliteNote ?? "leash/sqlite unavailable"}).`
      : `SQLite store: ${sqliteFsyncs.fsyncsPerStep.toFixed(2)} fsyncs per step counted by ${sqliteFsyncs.method === "strace" ? "strace -f -c -e trace=fsync,fdatasync on a child process" : "the store's commits (strace unavailable)"}, ` +
        `${sqliteFsyncs.commitsPerStep.toFixed(2)} commits per step (runs of ${sqliteFsyncs.steps[1]} against ${sqliteFsyncs.steps[0]} calls)` +
        `${sqliteFsyncs.note === undefined ? "" : `; ${sqliteFsyncs.note}`}.`,
    "",
    "| target | measured | result |",
    "| --- | --- | :---: |",
    ...result.targets.map((target) => `| ${target.target} | ${target.measured} | ${verdict(target.passed)} |`),
    "",
    `Total benchmark time: ${(result.durationMs / 1000).toFixed(1)} s; load average at the end ${result.loadAverageAtEnd[0] ?? 0}.`,
  ];
  return lines.join("\n") + "\n";
}
