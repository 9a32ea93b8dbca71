/**
 * The memory of signing and verifying a checkpoint of a store's log, by the log's size. For each size
 * (`--sizes`, default 100,000 and 1,000,000 records) a SQLite file (and, with DATABASE_URL and
 * `--postgres`, a PostgreSQL schema, at `--pg-sizes`) is filled with runs of about 100 records, each
 * a stored run with its saved state, made from one real agent run whose state and records are copied
 * under new run ids (every record re-made, so every chain and every state check holds). Then each of
 * `--rounds` rounds measures, each in a fresh child process: opening the store alone (the floor),
 * `signCheckpoint`, and `verifyCheckpoint` (which also checks every stored run's state against its
 * records). The table gives the median peak RSS (`process.resourceUsage().maxRSS`) and time of each,
 * and the ratio of the largest size to the smallest.
 *
 *   npx tsx bench/evidence-memory.ts [--sizes 100000,1000000] [--pg-sizes 100000] [--postgres] [--rounds 3] [--json] [--no-save] [--name evidence-memory]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  Agent,
  Decision,
  keygen,
  makeRecord,
  RunState,
  signCheckpoint,
  tool,
  verifyCheckpoint,
  type AuditHead,
  type AuditRecord,
  type RunStore,
} from "../src/index.js";
import { SqliteStore } from "../src/stores/sqlite/index.js";
import { PostgresStore } from "../src/stores/postgres/index.js";
import { machineInfo } from "../src/bench/machine-info.js";
import { median } from "../src/bench/measure.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "100000,1000000" },
    "pg-sizes": { type: "string", default: "100000" },
    postgres: { type: "boolean", default: false },
    rounds: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
    name: { type: "string", default: "evidence-memory" },
    child: { type: "string" },
    kind: { type: "string" },
    location: { type: "string" },
    note: { type: "string" },
  },
});
const origin = "example.com/bench";
// A fixed key pair, so that a child process signs and verifies with the keys of its parent.
const { signerKey, verifierKey } = keygen(origin);
const KEYS_FILE = "keys.json";

/** Opens the store a child measures. */
function openStore(kind: string, location: string): SqliteStore | PostgresStore {
  if (kind === "sqlite") return new SqliteStore(location);
  const { url, schema } = JSON.parse(location) as { url: string; schema: string };
  return new PostgresStore({ connectionString: url, schema });
}

if (values.child !== undefined) {
  // One measurement, alone in this process, so that its peak RSS is its own.
  const keys = JSON.parse(readFileSync(values.note!.replace(/[^/]*$/, KEYS_FILE), "utf8")) as {
    signerKey: string;
    verifierKey: string;
  };
  const store = openStore(values.kind!, values.location!);
  const begin = performance.now();
  let problems = 0;
  if (values.child === "sign") {
    writeFileSync(values.note!, await signCheckpoint(store, { key: keys.signerKey, origin }));
  } else if (values.child === "verify") {
    problems = (await verifyCheckpoint(store, readFileSync(values.note!, "utf8"), { key: keys.verifierKey })).length;
  } else {
    await store.load("no-such-run");
  }
  const ms = performance.now() - begin;
  await store.close();
  process.stdout.write(JSON.stringify({ ms, rssMiB: process.resourceUsage().maxRSS / 1024, problems }) + "\n");
  process.exit(0);
}

const sizes = values.sizes.split(",").map(Number);
const pgSizes = values.postgres ? values["pg-sizes"].split(",").map(Number) : [];
const rounds = Number(values.rounds);
if (![...sizes, ...pgSizes, rounds].every((value) => Number.isSafeInteger(value) && value > 0)) {
  throw new Error("Expected positive integers.");
}
const url = process.env.DATABASE_URL;
if (pgSizes.length > 0 && url === undefined) throw new Error("--postgres needs DATABASE_URL.");
const directory = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "leash-evidence-memory-"));
writeFileSync(join(directory, KEYS_FILE), JSON.stringify({ signerKey, verifierKey }));

/** One real run of about 100 records: its saved state and its records, the template of every stored run. */
async function templateRun(): Promise<{ state: RunState; records: AuditRecord[] }> {
  const lookup = tool({
    name: "lookup",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    execute: ({ topic }: { topic: string }) => `page about ${topic}`,
  });
  const agent = new Agent({
    tools: [lookup],
    planner: (state) =>
      state.steps.length < 32 ? Decision.act("lookup", { topic: `t${state.steps.length}` }) : Decision.finish("done"),
    clock: () => new Date("2026-01-01T00:00:00.000Z"),
  });
  const state = await agent.run("Read thirty-two pages.", { runId: "template" });
  return { state, records: await agent.audit.read("template") };
}

/** The template run under another id: every record re-made, so its chain is its own. */
function copyOf(template: { state: RunState; records: AuditRecord[] }, runId: string) {
  let head: AuditHead | null = null;
  const records = template.records.map((record) => {
    const copy = makeRecord(runId, head, record.event, record.data, record.at);
    head = { seq: copy.seq, digest: copy.digest };
    return copy;
  });
  const state = RunState.fromJSON({ ...template.state.toJSON(), runId, auditHead: head!, revision: 0 });
  return { state, records };
}

/** Fills a store with runs until it holds at least `size` records; returns how many it holds. */
async function fill(store: RunStore, size: number, template: { state: RunState; records: AuditRecord[] }) {
  const perRun = template.records.length;
  const runs = Math.ceil(size / perRun);
  for (let run = 0; run < runs; run++) {
    const { state, records } = copyOf(template, `run-${String(run).padStart(6, "0")}`);
    await store.create(state, { records });
  }
  return runs * perRun;
}

type Measure = "open" | "sign" | "verify";
interface Row {
  kind: string;
  size: number;
  measures: Record<Measure, { rssMiB: number; ms: number }>;
}

function child(measure: Measure, kind: string, location: string): { ms: number; rssMiB: number; problems: number } {
  const output = execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      "--child",
      measure,
      "--kind",
      kind,
      "--location",
      location,
      "--note",
      join(directory, "note.txt"),
    ],
    { encoding: "utf8", maxBuffer: 1 << 24 },
  );
  return JSON.parse(output.trim().split("\n").at(-1)!) as { ms: number; rssMiB: number; problems: number };
}

const template = await templateRun();
const rows: Row[] = [];
const targets = [
  ...sizes.map((size) => ({ kind: "sqlite", size })),
  ...pgSizes.map((size) => ({ kind: "postgres", size })),
];
for (const { kind, size } of targets) {
  const location =
    kind === "sqlite"
      ? join(directory, `log-${size}.db`)
      : JSON.stringify({ url, schema: `bench_evidence_${size}_${process.pid}` });
  const store = openStore(kind, location);
  const held = await fill(store, size, template);
  await store.close();
  process.stderr.write(`${kind}: ${held} records held.\n`);
  const samples: Record<Measure, { rssMiB: number[]; ms: number[] }> = {
    open: { rssMiB: [], ms: [] },
    sign: { rssMiB: [], ms: [] },
    verify: { rssMiB: [], ms: [] },
  };
  for (let round = 0; round < rounds; round++) {
    for (const measure of ["open", "sign", "verify"] as const) {
      const { ms, rssMiB, problems } = child(measure, kind, location);
      if (problems > 0) throw new Error(`The checkpoint of ${kind} at ${size} has ${problems} problems.`);
      samples[measure].rssMiB.push(rssMiB);
      samples[measure].ms.push(ms);
    }
  }
  const measures = Object.fromEntries(
    (["open", "sign", "verify"] as const).map((measure) => [
      measure,
      { rssMiB: median(samples[measure].rssMiB), ms: median(samples[measure].ms) },
    ]),
  ) as Row["measures"];
  rows.push({ kind, size: held, measures });
  if (kind === "sqlite") rmSync(location, { force: true });
  else {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA ${JSON.parse(location).schema} CASCADE`);
    await client.end();
  }
}
rmSync(directory, { recursive: true, force: true });

const fixed = (value: number, digits = 0): string => value.toFixed(digits);
const ratioLines = ["sqlite", "postgres"].flatMap((kind) => {
  const ofKind = rows.filter((row) => row.kind === kind);
  if (ofKind.length < 2) return [];
  const small = ofKind[0]!;
  const large = ofKind.at(-1)!;
  const ratio = (measure: Measure) => fixed(large.measures[measure].rssMiB / small.measures[measure].rssMiB, 2);
  return [
    `| ${kind} | ${large.size.toLocaleString("en")} / ${small.size.toLocaleString("en")} | ${ratio("open")} | ${ratio("sign")} | ${ratio("verify")} |`,
  ];
});
const markdown = [
  `Signing and verifying a checkpoint of a store's log, each in a fresh process; medians of ${rounds} rounds. Runs of ${template.records.length} records, each a stored run with its saved state (copies of one real agent run), so \`verifyCheckpoint\` also checks every state against its records.`,
  "",
  "| store | records | runs | open: peak RSS, MiB | sign: peak RSS, MiB | sign, ms | verify: peak RSS, MiB | verify, ms |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (row) =>
      `| ${row.kind} | ${row.size.toLocaleString("en")} | ${(row.size / template.records.length).toLocaleString("en")} | ${fixed(row.measures.open.rssMiB)} | ${fixed(row.measures.sign.rssMiB)} | ${fixed(row.measures.sign.ms)} | ${fixed(row.measures.verify.rssMiB)} | ${fixed(row.measures.verify.ms)} |`,
  ),
  "",
  ...(ratioLines.length === 0
    ? []
    : [
        "Peak RSS of the largest log over that of the smallest:",
        "",
        "| store | records | open | sign | verify |",
        "| --- | --- | ---: | ---: | ---: |",
        ...ratioLines,
        "",
      ]),
].join("\n");
const result = { rounds, recordsPerRun: template.records.length, rows };
process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : markdown);
if (!values["no-save"]) {
  const command = `npx tsx bench/evidence-memory.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults(values.name, {
    title: "Evidence memory benchmark",
    command,
    machine: machineInfo(),
    markdown,
    json: result,
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
