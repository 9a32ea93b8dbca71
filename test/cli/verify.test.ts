import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Agent, Decision, JsonlAuditSink, tool } from "../../src/index.js";
import type { AuditRecord } from "../../src/index.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";

const echo = tool({
  name: "echo",
  parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false },
  execute: ({ text }) => text ?? "",
});

/** Writes a JSONL trail of `runs` runs of two steps each; returns its path and its records. */
async function jsonlTrail(folder: string, runs = 1): Promise<{ path: string; records: AuditRecord[] }> {
  const path = join(folder, "audit.jsonl");
  const sink = new JsonlAuditSink(path);
  const agent = new Agent({
    tools: [echo],
    planner: (state) => (state.steps.length === 0 ? Decision.act("echo", { text: "hi" }) : Decision.finish("done")),
    audit: sink,
  });
  for (let run = 0; run < runs; run++) await agent.run("say hi");
  await sink.close();
  return { path, records: sink.records };
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

interface VerifyJson {
  ok: boolean;
  kind: string;
  records: number;
  problems: { run: string | null; seq: number | null; problem: string; line?: number }[];
}

test("verify passes a sound JSONL trail, in text and in JSON", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, records } = await jsonlTrail(folder.path, 2);
  const text = leash(["verify", path], { cwd: folder.path });
  assert.equal(text.status, 0, text.stdout + text.stderr);
  assert.match(text.stdout, new RegExp(`${records.length} records of 2 runs`));
  const json = JSON.parse(leash(["verify", path, "--json"], { cwd: folder.path }).stdout) as VerifyJson;
  assert.deepEqual(
    { ok: json.ok, kind: json.kind, records: json.records, problems: json.problems },
    { ok: true, kind: "jsonl", records: records.length, problems: [] },
  );
});

test("verify names a tampered record by run, seq and problem, and exits 1", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, records } = await jsonlTrail(folder.path);
  const all = lines(path);
  all[2] = (all[2] as string).replace(/"at":"[^"]+"/, '"at":"2000-01-01T00:00:00.000Z"');
  writeFileSync(path, `${all.join("\n")}\n`);
  const result = leash(["verify", path], { cwd: folder.path });
  assert.equal(result.status, 1);
  const run = (records[0] as AuditRecord).run;
  assert.match(result.stdout, new RegExp(`changed \\(run ${run}, seq 2\\)`));
  assert.equal(errorLine(result).code, "verification_failed");
});

test("verify reports a torn last line and a corrupt line as problems, and still checks the rest", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path } = await jsonlTrail(folder.path);
  appendFileSync(path, '{"v":1,"run":"cut sh');
  const torn = leash(["verify", path, "--json"], { cwd: folder.path });
  assert.equal(torn.status, 1);
  const tornJson = JSON.parse(torn.stdout) as VerifyJson;
  assert.equal(tornJson.ok, false);
  assert.deepEqual(
    tornJson.problems.map((problem) => problem.problem),
    ["torn"],
  );
  assert.equal(tornJson.problems[0]?.line, lines(path).length);

  const all = lines(path).slice(0, -1);
  all.splice(1, 1, "this is not json");
  writeFileSync(path, `${all.join("\n")}\n`);
  const corrupt = leash(["verify", path], { cwd: folder.path });
  assert.equal(corrupt.status, 1);
  assert.match(corrupt.stdout, /corrupt \(line 2\)/);
  // The record on line 2 is gone from the chain: the walk still checks what follows.
  assert.match(corrupt.stdout, /missing \(run [^,]+, seq 1\)/);
});

test("verify --head shows a trail cut after its last record as truncated", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, records } = await jsonlTrail(folder.path);
  const last = records.at(-1) as AuditRecord;
  writeFileSync(path, `${lines(path).slice(0, -1).join("\n")}\n`);
  assert.equal(leash(["verify", path], { cwd: folder.path }).status, 0, "a chain alone cannot show its end was cut");
  const result = leash(["verify", path, "--head", `${last.seq}:${last.digest}`], { cwd: folder.path });
  assert.equal(result.status, 1);
  assert.match(result.stdout, new RegExp(`truncated \\(run ${last.run}, seq ${last.seq}\\)`));

  const bad = leash(["verify", path, "--head", "12:nothex"], { cwd: folder.path });
  assert.equal(bad.status, 2);
  assert.equal(errorLine(bad).code, "invalid_option");
});

test("verify --head needs --run when the trail holds several runs", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, records } = await jsonlTrail(folder.path, 2);
  const first = records[0] as AuditRecord;
  const head = `${first.seq}:${first.digest}`;
  const ambiguous = leash(["verify", path, "--head", head], { cwd: folder.path });
  assert.equal(ambiguous.status, 2);
  assert.match(errorLine(ambiguous).message, /--run RUN/);
  assert.equal(leash(["verify", path, "--head", head, "--run", first.run], { cwd: folder.path }).status, 0);
});

test("verify of a store checks each run's chain and that it holds the state's auditHead", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  assert.equal(leash(["demo", "--db", "shop.db"], { cwd: folder.path }).status, 0);
  const db = join(folder.path, "shop.db");
  const database = new Database(db);
  const last = database.prepare("SELECT position, run_id, seq FROM audit ORDER BY position DESC LIMIT 1").get() as {
    position: number;
    run_id: string;
    seq: number;
  };
  database.prepare("DELETE FROM audit WHERE position = ?").run(last.position);
  const changed = database.prepare("SELECT position, record FROM audit WHERE seq = 3").get() as {
    position: number;
    record: string;
  };
  database
    .prepare("UPDATE audit SET record = ? WHERE position = ?")
    .run(changed.record.replace(/"at":"[^"]+"/, '"at":"2000-01-01T00:00:00.000Z"'), changed.position);
  database.close();

  const result = leash(["verify", db, "--json"], { cwd: folder.path });
  assert.equal(result.status, 1);
  const report = JSON.parse(result.stdout) as VerifyJson;
  assert.equal(report.kind, "sqlite");
  assert.deepEqual(
    report.problems.map(({ run, seq, problem }) => ({ run, seq, problem })),
    [
      { run: last.run_id, seq: 3, problem: "changed" },
      { run: last.run_id, seq: last.seq, problem: "truncated" },
    ],
  );
  const show = leash(["show", last.run_id, "--db", db], { cwd: folder.path });
  assert.match(show.stdout, /does NOT hold the state's auditHead/);
});

test("verify of a path that does not exist is one line and exit 2", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const result = leash(["verify", "nowhere.jsonl"], { cwd: folder.path });
  assert.equal(result.status, 2);
  assert.equal(errorLine(result).code, "trail_not_found");
});
