/**
 * The long-run benchmark: whether a step costs the same at step 40,000 as at step 1,000, i.e. whether
 * the total cost of a run grows linearly with its steps. One run of the largest N is driven by a
 * planner that reads `state.steps.length` only, through one read tool, with no store (the memory
 * sink), a MemoryStore or a SqliteStore on a file (each the run's store and sink), and no approvals. The planner stamps the time at each call, so the time of
 * every step is known; the table gives, at each N, the median over the runs of the median step and of the mean step
 * (garbage collection included) in a window ending at N, each with its ratio to N = 4,000.
 *
 *   npx tsx bench/long-run.ts [--steps 1000,4000,40000] [--runs 5] [--window 500] [--store none|memory|sqlite] [--json] [--no-save]
 *
 * With `--store memory` the run is kept in a MemoryStore (store and sink) instead of no store; the
 * results are then written as `long-run-memory.md` / `.json`. With `--store sqlite` it is kept in a
 * SqliteStore on a file in a fresh temporary folder (WAL, `synchronous=FULL`: every save waits for
 * fsync), removed afterwards; the results are written as `long-run-sqlite.md` / `.json`.
 *
 * Exits 1 when the step at the largest N costs more than 3 times the step at 4,000 (the target).
 */
import { writeFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { Agent, Decision, MemoryStore, tool } from "../src/index.js";
import type { AuditSink, RunStore } from "../src/index.js";
import { SqliteStore } from "../src/stores/sqlite/index.js";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "1000,4000,40000" },
    runs: { type: "string", default: "5" },
    window: { type: "string", default: "500" },
    json: { type: "boolean", default: false },
    store: { type: "string", default: "none" },
    "no-save": { type: "boolean", default: false },
  },
});
const storeKind = values.store;
if (storeKind !== "none" && storeKind !== "memory" && storeKind !== "sqlite") {
  throw new Error("Expected --store none, memory or sqlite.");
}
const points = values.steps
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const runs = Number(values.runs);
const window = Number(values.window);
const last = points.at(-1) ?? 0;
if (points.some((n) => !Number.isSafeInteger(n) || n <= window) || !(runs >= 1) || !(window >= 1)) {
  throw new Error("Expected --steps above --window, --runs >= 1 and --window >= 1.");
}

const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A fresh store of the kind asked for, and how to remove it, or none. */
function openStore(): { store?: RunStore & AuditSink; remove: () => Promise<void> } {
  if (storeKind === "memory") return { store: new MemoryStore(), remove: () => Promise.resolve() };
  if (storeKind === "none") return { remove: () => Promise.resolve() };
  const folder = mkdtempSync(join(tmpdir(), "leash-long-run-"));
  const store = new SqliteStore(join(folder, "runs.db"));
  return {
    store,
    remove: async () => {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** One run of `last` steps; gives the time (ms) at which the planner was asked for step i. */
async function oneRun(): Promise<Float64Array> {
  const stamps = new Float64Array(last + 1);
  const read = tool({ name: "read", execute: () => "page" });
  const opened = openStore();
  const agent = new Agent({
    tools: [read],
    planner: (state) => {
      const step = state.steps.length;
      stamps[step] = performance.now();
      return step < last ? Decision.act("read", {}) : Decision.finish(step);
    },
    limits: { maxSteps: last + 1, maxToolCalls: last, maxDurationMs: 3_600_000 },
    ...(opened.store === undefined ? {} : { store: opened.store }),
  });
  let state;
  try {
    state = await agent.run("a long run");
  } finally {
    await opened.remove();
  }
  if (state.status !== "completed") throw new Error(`The run ended ${state.status}: ${state.failure?.message ?? ""}`);
  return stamps;
}

const perRun: number[][] = points.map(() => []);
const perRunMedian: number[][] = points.map(() => []);
for (let run = 0; run < runs; run++) {
  const stamps = await oneRun();
  points.forEach((n, index) => {
    const times: number[] = [];
    for (let step = n - window; step < n; step++) times.push(stamps[step + 1]! - stamps[step]!);
    perRun[index]!.push(((stamps[n]! - stamps[n - window]!) / window) * 1000);
    perRunMedian[index]!.push(median(times) * 1000);
  });
  process.stderr.write(`run ${run + 1} of ${runs} done\n`);
}

const base = points.indexOf(4_000) >= 0 ? points.indexOf(4_000) : 0;
const rows = points.map((n, index) => ({
  steps: n,
  meanUs: median(perRun[index]!),
  medianUs: median(perRunMedian[index]!),
}));
const ratios = rows.map((row) => row.meanUs / rows[base]!.meanUs);
const medianRatios = rows.map((row) => row.medianUs / rows[base]!.medianUs);
const target = 3;
// Both measures must be within the target: the median step, and the mean with garbage collection.
const worst = Math.max(ratios.at(-1) ?? 1, medianRatios.at(-1) ?? 1);
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, load ${loadavg()
  .map((load) => load.toFixed(2))
  .join(" ")}`;
const baseSteps = rows[base]!.steps.toLocaleString("en");
const table = [
  `Each figure is the median over ${runs} runs; a step's time is measured over the ${window} steps before N.`,
  "",
  `| steps so far (N) | median step, µs | ratio to N = ${baseSteps} | mean step (garbage collection included), µs | ratio to N = ${baseSteps} |`,
  "| ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (row, index) =>
      `| ${row.steps.toLocaleString("en")} | ${row.medianUs.toFixed(1)} | ${medianRatios[index]!.toFixed(2)} | ` +
      `${row.meanUs.toFixed(1)} | ${ratios[index]!.toFixed(2)} |`,
  ),
  "",
  `Target: a step at N = ${last.toLocaleString("en")} costs at most ${target}× a step at N = ${baseSteps}: ` +
    `${worst <= target ? "met" : "missed"} (${worst.toFixed(2)}× at worst).`,
  "",
].join("\n");
const command = `npx tsx bench/long-run.ts --steps ${points.join(",")} --runs ${runs} --window ${window} --store ${values.store}`;
const name = storeKind === "none" ? "long-run" : `long-run-${storeKind}`;
const result = {
  store: storeKind,
  steps: points,
  runs,
  window,
  rows,
  ratios,
  medianRatios,
  target,
  met: worst <= target,
  machine,
};
process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : table);
if (!values["no-save"]) {
  const folder = join(dirname(fileURLToPath(import.meta.url)), "results");
  mkdirSync(folder, { recursive: true });
  const date = new Date().toISOString();
  const heading = `# The cost of a step in a long run\n\n\`${command}\`, ${date}.\n\nMachine: ${machine}.\n\n`;
  writeFileSync(join(folder, `${name}.md`), heading + table);
  writeFileSync(join(folder, `${name}.json`), JSON.stringify({ date, command, result }, null, 2) + "\n");
}
process.exitCode = worst <= target ? 0 : 1;
