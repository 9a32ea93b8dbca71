/**
 * The listings benchmark: what it costs to list the runs of a store holding 1k, 10k and 20k runs
 * (50k with `--runs 1000,10000,20000,50000`), on SQLite and on PostgreSQL (DATABASE_URL; skipped,
 * saying so, when it is not set). The first 1,000 runs are made by a real agent through the store's
 * saves (a mix of completed, paused, failed and stopped runs); the runs after them are copies of
 * those states under their own ids and times, created through `store.create` (see listing-runs.ts). Per store and size, the median time of
 * `store.list()`, of `store.list({ limit: 50, order: "updated_desc" })`, of
 * `store.summaries({ limit: 50, order: "updated_desc" })` when the store has it, of one look by the
 * inbox's watcher, and, from the real `leash serve` in a child process, of its list page and of
 * `GET /api/runs` (a measure under half a second in all is timed up to 101 times, see
 * listing-measures.ts); then, with one page's event stream open and nothing changing, the serving
 * process's CPU share and its peak resident set. Each figure comes with its ratio to 1k runs.
 * PostgreSQL's runs table is vacuumed and analyzed after each fill, as autovacuum soon would be.
 *
 * The SQLite files are cached between rows and between runs of the program (see listing-cache.ts);
 * PostgreSQL fills one fresh schema, growing it from row to row, and drops it at the end.
 *
 * leash is the built package (`npm run build` first), as users run it.
 *
 *   npm run build && npx tsx bench/listings.ts [--runs 1000,10000,20000] [--stores sqlite,postgres]
 *     [--repetitions 3] [--idle 16] [--no-save] [--json]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { PostgresStore } from "leash/postgres";
import { SqliteStore } from "leash/sqlite";
import { machineInfo } from "../src/bench/machine-info.js";
import { databaseUrl, describeError, freshSchema, runSql } from "./bench-stores.js";
import { cacheFolder, sqliteStoreOf } from "./listing-cache.js";
import type { ListingMeasures } from "./listing-measures.js";
import { measureListings } from "./listing-measures.js";
import { fillStore } from "./listing-runs.js";
import { writeResults } from "./results-file.js";
import { addApprover } from "./serving-process.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000,10000,20000" },
    stores: { type: "string", default: "sqlite,postgres" },
    repetitions: { type: "string", default: "3" },
    idle: { type: "string", default: "16" },
    "no-save": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const sizes = [...new Set(values.runs.split(",").map(Number))].sort((a, b) => a - b);
const kinds = [...new Set(values.stores.split(","))];
const repetitions = Number(values.repetitions);
const idleMs = Number(values.idle) * 1000;
if (sizes.some((size) => !Number.isSafeInteger(size) || size < 50))
  throw new Error("Expected --runs to list integers >= 50.");
if (kinds.some((kind) => kind !== "sqlite" && kind !== "postgres"))
  throw new Error("Expected --stores sqlite,postgres.");
if (!Number.isSafeInteger(repetitions) || repetitions < 1) throw new Error("Expected --repetitions >= 1.");
if (!(idleMs > 0)) throw new Error("Expected --idle to be a positive number of seconds.");
const url = databaseUrl();
const postgresSkipped = kinds.includes("postgres") && url === undefined;

interface Row extends ListingMeasures {
  store: "sqlite" | "postgres";
  runs: number;
}
const rows: Row[] = [];
/** Why a store's rows stopped short, when they did. */
const stopped: string[] = [];

if (kinds.includes("sqlite")) {
  const folder = cacheFolder();
  for (const size of sizes) {
    const { file, token } = await sqliteStoreOf(size, folder);
    const store = new SqliteStore(file);
    try {
      rows.push({
        store: "sqlite",
        runs: size,
        ...(await measureListings({ store, storeArgs: ["--db", file], token, repetitions, idleMs })),
      });
    } finally {
      await store.close();
    }
    process.stderr.write(`SQLite, ${size.toLocaleString("en")} runs: measured\n`);
  }
}
if (kinds.includes("postgres") && url !== undefined) {
  const schema = freshSchema("leash_bench_listings");
  const store = new PostgresStore({ connectionString: url, schema });
  const storeArgs = ["--db", url, "--schema", schema];
  try {
    await store.list();
    const token = addApprover(storeArgs, "bench");
    let held = 0;
    for (const size of sizes) {
      await fillStore(store, held, size, `PostgreSQL, ${size.toLocaleString("en")} runs`);
      held = size;
      // What autovacuum does to a table soon after many rows came: done before the timings, so that
      // they measure the store as a deployment reads it, not autovacuum's pass racing them.
      await runSql(url, `VACUUM ANALYZE ${pg.escapeIdentifier(schema)}.leash_runs`);
      rows.push({
        store: "postgres",
        runs: size,
        ...(await measureListings({ store, storeArgs, token, repetitions, idleMs })),
      });
      process.stderr.write(`PostgreSQL, ${size.toLocaleString("en")} runs: measured\n`);
    }
  } catch (error) {
    // The rows measured so far are still written; the table says where PostgreSQL stopped and why.
    stopped.push(
      `PostgreSQL: stopped after ${rows.filter((row) => row.store === "postgres").length} rows: ${describeError(error)}`,
    );
  } finally {
    await store.close();
    await runSql(url, `DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`).catch(() => undefined);
  }
}

const COLUMNS: [keyof ListingMeasures, string][] = [
  ["list", "`list()`"],
  ["listPage", "`list({ limit: 50 })`"],
  ["summaries", "`summaries({ limit: 50 })`"],
  ["inboxPage", "inbox list page"],
  ["apiRuns", "`GET /api/runs`"],
  ["watcherPoll", "one watcher poll"],
];
const format = (value: number | undefined): string =>
  value === undefined ? "n/a" : value.toLocaleString("en", { maximumFractionDigits: value < 10 ? 2 : 0 });
const ratio = (row: Row, key: keyof ListingMeasures): string => {
  const base = rows.find((other) => other.store === row.store && other.runs === sizes[0]);
  const value = row[key];
  const first = base?.[key];
  return typeof value === "number" && typeof first === "number" ? `${(value / first).toFixed(1)}×` : "";
};
const STORE_NAMES = { sqlite: "SQLite", postgres: "PostgreSQL" };
const base = sizes[0]!.toLocaleString("en");
// The heading gives the load when the program started; other work may have come since.
const loadEnd = loadavg()
  .map((load) => load.toFixed(2))
  .join(" ");
const table = [
  `Medians of at least ${repetitions} timings (fewer once a measure took 20 s; more, up to 101, while its timings took under 0.5 s in all) after one untimed, in ms; × is the ratio to the same store at ${base} runs. The first 1,000 runs were made by an agent (80% completed after 1-4 reads, 10% awaiting approval, 5% failed, 5% stopped); each run after them is a copy of one of those states under its own id and times, created through \`store.create\` (without its audit trail). ` +
    '`list({ limit: 50 })` and `summaries({ limit: 50 })` ask for the 50 runs changed last (`order: "updated_desc"`). ' +
    `The inbox's pages are timed over HTTP from the real \`leash serve\` (a child process) to the last byte; a watcher poll is one look at the store by the inbox's watcher (its first, in this process). ` +
    `Then one page's event stream stays open for ${values.idle} s with nothing changing: the serving process's CPU over that time, as a share of one core, and its peak resident set.`,
  "",
  `| store | runs | ${COLUMNS.map(([, name]) => `${name} | ×`).join(" | ")} | serving CPU, one page open | serving peak RSS, MiB |`,
  `| --- | ---: | ${COLUMNS.map(() => "---: | ---:").join(" | ")} | ---: | ---: |`,
  ...rows.map(
    (row) =>
      `| ${STORE_NAMES[row.store]} | ${row.runs.toLocaleString("en")} | ${COLUMNS.map(([key]) => `${format(row[key] as number | undefined)} | ${ratio(row, key)}`).join(" | ")} | ` +
      `${row.idleCpuShare === undefined ? "n/a" : `${(row.idleCpuShare * 100).toFixed(1)}%`} | ${format(row.peakRssMiB)} |`,
  ),
  "",
  ...[...new Set(rows.flatMap((row) => row.problems.map((problem) => `${STORE_NAMES[row.store]}: ${problem}`)))].map(
    (line) => `- n/a: ${line.replaceAll(/\s+/g, " ")}`,
  ),
  ...(postgresSkipped ? ["PostgreSQL: skipped, DATABASE_URL is not set."] : []),
  ...stopped.map((line) => line.replaceAll(/\s+/g, " ")),
  "",
  `Load average at the end: ${loadEnd}.`,
  "",
].join("\n");

process.stdout.write(values.json ? JSON.stringify(rows, null, 2) + "\n" : table);
if (!values["no-save"]) {
  const command = `npx tsx bench/listings.ts ${process.argv.slice(2).join(" ")}`.trim();
  const name = sizes.at(-1)! >= 50_000 ? "listings-50k" : "listings";
  const written = writeResults(name, {
    title: "Listings of a store holding many runs",
    command,
    machine: machineInfo(),
    markdown: table,
    json: { sizes, repetitions, idleMs, postgresSkipped, rows },
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
// A store call left hanging past a deadline (a connection that never came) must not keep the program
// alive once the results are out: whatever is still open after a grace period is left behind.
setTimeout(() => process.exit(), 5_000).unref();
