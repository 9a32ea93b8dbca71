/**
 * The concurrency benchmark: K runs at once in one process, each of 5 calls of a cheap read tool,
 * each planner call awaiting a simulated model that answers after 50-300 ms (seeded: the same delays
 * for every store), on no store (the agent's memory sink), a SqliteStore on a file in a temporary
 * folder, and a PostgresStore on a fresh schema of DATABASE_URL (skipped, saying so, when it is not
 * set). Per K and store, the medians over the repetitions of: throughput (tool steps per second), the
 * time from a planner's return to that run's next planner call (what leash and the store add between
 * two model calls) and that time above no store's, the event-loop delay p50 and p99, the resident
 * set's growth per run, and the throughput's ratio to no store. A row whose runs did not all complete
 * says how they failed (the code and message), and a sample that passes its deadline is cancelled and
 * said so: the program never hangs.
 *
 * leash is the built package (`npm run build` first), as users run it.
 *
 *   npm run build && npx tsx bench/concurrency.ts [--k 10,100,1000] [--repetitions 3] [--seed 18]
 *     [--stores none,sqlite,postgres] [--deadline 180] [--under-load] [--no-save] [--json]
 *
 * `--under-load` starts two child processes that each burn a core for the whole measurement (the
 * results are then written as `concurrency-under-load.md` / `.json`).
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { machineInfo } from "../src/bench/machine-info.js";
import type { BenchStoreKind } from "./bench-stores.js";
import { databaseUrl, medianOf } from "./bench-stores.js";
import type { ConcurrencySample } from "./concurrency-sample.js";
import { STEPS_PER_RUN, measureConcurrency, modelDelays } from "./concurrency-sample.js";
import { startCpuBurners } from "./cpu-burners.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    k: { type: "string", default: "10,100,1000" },
    repetitions: { type: "string", default: "3" },
    seed: { type: "string", default: "18" },
    stores: { type: "string", default: "none,sqlite,postgres" },
    deadline: { type: "string", default: "180" },
    "under-load": { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const ks = [...new Set(values.k.split(",").map(Number))];
const repetitions = Number(values.repetitions);
const seed = Number(values.seed);
const deadlineMs = Number(values.deadline) * 1000;
const kinds = [...new Set(values.stores.split(","))] as BenchStoreKind[];
if (ks.some((k) => !Number.isSafeInteger(k) || k < 1)) throw new Error("Expected --k to list positive integers.");
if (!Number.isSafeInteger(repetitions) || repetitions < 1) throw new Error("Expected --repetitions >= 1.");
if (!Number.isSafeInteger(seed)) throw new Error("Expected --seed to be an integer.");
if (!(deadlineMs > 0)) throw new Error("Expected --deadline to be a positive number of seconds.");
if (kinds.some((kind) => !["none", "sqlite", "postgres"].includes(kind)) || !kinds.includes("none"))
  throw new Error("Expected --stores to list none (the baseline), sqlite and postgres.");
const postgresSkipped = kinds.includes("postgres") && databaseUrl() === undefined;
const measured = kinds.filter((kind) => !(kind === "postgres" && postgresSkipped));

/** One row of the table: a K and a store, the medians over its samples. */
interface Row {
  k: number;
  store: BenchStoreKind;
  samples: ConcurrencySample[];
  stepsPerSecond: number;
  ratioToNone: number;
  medianGapMs: number;
  addedPerCallMs: number;
  medianOverrunMs: number;
  lagP50Ms: number;
  lagP99Ms: number;
  rssPerRunKiB: number;
  /** Set when some sample's runs did not all complete. */
  failure: string | undefined;
}

const machine = machineInfo();
const burners = values["under-load"] ? startCpuBurners(2) : undefined;
const rows: Row[] = [];
try {
  // One untimed sample per store first, so that no row pays for compiling the code or warming a cache.
  for (const kind of measured) await measureConcurrency({ kind, k: 10, delays: modelDelays(10, seed + 1), deadlineMs });
  for (const k of ks) {
    const delays = modelDelays(k, seed);
    const samples = new Map<BenchStoreKind, ConcurrencySample[]>(measured.map((kind) => [kind, []]));
    const gaveUp = new Set<BenchStoreKind>();
    for (let repetition = 0; repetition < repetitions; repetition++) {
      // The stores take turns, and the order turns too, so drift and leftover garbage hit all alike.
      for (let turn = 0; turn < measured.length; turn++) {
        const kind = measured[(repetition + turn) % measured.length]!;
        if (gaveUp.has(kind)) continue;
        const sample = await measureConcurrency({ kind, k, delays, deadlineMs });
        samples.get(kind)!.push(sample);
        process.stderr.write(
          `K = ${k}, ${kind}, repetition ${repetition + 1}: ${sample.stepsPerSecond.toFixed(0)} steps/s` +
            `${sample.failure === undefined ? "" : `, ${sample.failure}`}\n`,
        );
        // A store that timed out would only time out again: its row says so once.
        if (sample.timedOut) gaveUp.add(kind);
      }
    }
    const noneGap = medianOf(samples.get("none")!.map((sample) => sample.medianGapMs));
    const noneRate = medianOf(samples.get("none")!.map((sample) => sample.stepsPerSecond));
    for (const kind of measured) {
      const list = samples.get(kind)!;
      const of = (pick: (sample: ConcurrencySample) => number) => medianOf(list.map(pick));
      const stepsPerSecond = of((sample) => sample.stepsPerSecond);
      const medianGapMs = of((sample) => sample.medianGapMs);
      rows.push({
        k,
        store: kind,
        samples: list,
        stepsPerSecond,
        ratioToNone: stepsPerSecond / noneRate,
        medianGapMs,
        addedPerCallMs: medianGapMs - noneGap,
        medianOverrunMs: of((sample) => sample.medianOverrunMs),
        lagP50Ms: of((sample) => sample.lagP50Ms),
        lagP99Ms: of((sample) => sample.lagP99Ms),
        rssPerRunKiB: of((sample) => sample.rssPerRunKiB),
        failure: list.find((sample) => sample.failure !== undefined)?.failure,
      });
    }
  }
} finally {
  await burners?.stop();
}

const STORE_NAMES: Record<BenchStoreKind, string> = {
  none: "no store",
  sqlite: "SqliteStore",
  postgres: "PostgresStore",
};
const number = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";
/** Table cells hold the failure text: a `|` or a line break in it would break the table. */
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll(/\s+/g, " ");
// The heading gives the load when the program started; other work may have come since.
const loadEnd = loadavg()
  .map((load) => load.toFixed(2))
  .join(" ");
const table = [
  `K runs at once in one process, each of ${STEPS_PER_RUN} read-tool steps; each planner call awaits a simulated model answering after 50-300 ms (seed ${seed}, the same delays for every store). ` +
    `Medians of ${repetitions} repetitions, the stores taking turns${values["under-load"] ? "; two child processes burned a core each throughout (`--under-load`)" : ""}. ` +
    "Added latency per model call: the median time from a planner's return to that run's next planner call, minus no store's. " +
    "Model call beyond its delay: the median time a planner call took past its model's delay (how late a blocked event loop took up the answer, and what `callModel` adds). " +
    "RSS per run: the resident set's peak during the runs above what it was before, divided by K.",
  "",
  "| K | store | steps/s | ratio to no store | return → next call, ms | added per model call, ms | model call beyond its delay, ms | event-loop lag p50, ms | p99, ms | RSS per run, KiB | outcome |",
  "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ...rows.map(
    (row) =>
      `| ${row.k.toLocaleString("en")} | ${STORE_NAMES[row.store]} | ${number(row.stepsPerSecond)} | ${number(row.ratioToNone, 2)} | ` +
      `${number(row.medianGapMs, 1)} | ${row.store === "none" ? "" : number(row.addedPerCallMs, 1)} | ${number(row.medianOverrunMs, 1)} | ${number(row.lagP50Ms, 1)} | ` +
      `${number(row.lagP99Ms, 1)} | ${number(row.rssPerRunKiB, 1)} | ${row.failure === undefined ? "all completed" : cell(row.failure)} |`,
  ),
  "",
  ...(postgresSkipped ? ["PostgresStore: skipped, DATABASE_URL is not set.", ""] : []),
  `Load average at the end: ${loadEnd}.`,
  "",
].join("\n");

process.stdout.write(values.json ? JSON.stringify(rows, null, 2) + "\n" : table);
if (!values["no-save"]) {
  const command = `npx tsx bench/concurrency.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults(values["under-load"] ? "concurrency-under-load" : "concurrency", {
    title: values["under-load"] ? "Concurrent runs in one process, under load" : "Concurrent runs in one process",
    command,
    machine,
    markdown: table,
    json: { ks, repetitions, seed, deadlineMs, underLoad: values["under-load"], postgresSkipped, rows },
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
// A store call left hanging past a deadline (a connection that never came) must not keep the program
// alive once the results are out: whatever is still open after a grace period is left behind.
setTimeout(() => process.exit(), 5_000).unref();
