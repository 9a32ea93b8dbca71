import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  keygen,
  makeRecord,
  signCheckpoint,
  verifyAudit,
  verifyCheckpoint,
  type AuditHead,
  type AuditRecord,
} from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const CHAIN_PROBLEMS = new Set([
  "changed",
  "missing",
  "reordered",
  "duplicate",
  "broken_link",
  "bad_start",
  "malformed",
]);
const origin = "example.com/leash";

/** A SQLite store of `runs` interleaved runs of `length` records: several pages of the trail. */
async function interleavedStore(path: string, runs: number, length: number): Promise<SqliteStore> {
  const store = new SqliteStore(path);
  const heads = new Map<string, AuditHead | null>();
  for (let seq = 0; seq < length; seq++) {
    const batch: AuditRecord[] = [];
    for (let run = 0; run < runs; run++) {
      const runId = `run-${run}`;
      const record = makeRecord(
        runId,
        heads.get(runId) ?? null,
        seq === 0 ? "run_started" : "tool_ended",
        { seq, run },
        "2026-01-01T00:00:00.000Z",
      );
      heads.set(runId, { seq, digest: record.digest });
      batch.push(record);
    }
    await store.append(batch);
  }
  return store;
}

/** The chain problems verifyCheckpoint reports, as verifyAudit's are shaped. */
async function chainProblems(store: SqliteStore, note: string, verifierKey: string) {
  return (await verifyCheckpoint(store, note, { key: verifierKey }))
    .filter((problem) => CHAIN_PROBLEMS.has(problem.problem))
    .map(({ problem, message, run, seq }) => ({ run: run ?? null, seq: seq ?? null, problem, message }));
}

type Tamper = (database: Database.Database, total: number) => void;
const tampers: Record<string, Tamper> = {
  "two records of a run swapped across pages": (database, total) => {
    // Run 3's seq 2 (near the start) and seq 70 (pages later) change places in the trail.
    const at = (seq: number) =>
      (
        database.prepare("SELECT position FROM audit WHERE run_id = 'run-3' AND seq = ?").get(seq) as {
          position: number;
        }
      ).position;
    const [first, second] = [at(2), at(70)];
    const move = database.prepare("UPDATE audit SET position = ? WHERE position = ?");
    database.transaction(() => {
      move.run(total * 10, first);
      move.run(first, second);
      move.run(second, total * 10);
    })();
  },
  "a record of a run moved to the end of the trail": (database, total) => {
    database.prepare("UPDATE audit SET position = ? WHERE run_id = 'run-7' AND seq = 5").run(total * 10);
  },
  "a middle record deleted, a record changed and a run's first removed": (database) => {
    database.prepare("DELETE FROM audit WHERE run_id = 'run-1' AND seq = 40").run();
    database.prepare("DELETE FROM audit WHERE run_id = 'run-9' AND seq = 0").run();
    const row = database.prepare("SELECT record FROM audit WHERE run_id = 'run-4' AND seq = 77").get() as {
      record: string;
    };
    database
      .prepare("UPDATE audit SET record = ? WHERE run_id = 'run-4' AND seq = 77")
      .run(row.record.replace('"run":4}', '"run":44}'));
  },
  "several runs out of order at once, one of them twice": (database, total) => {
    const move = database.prepare("UPDATE audit SET position = ? WHERE run_id = ? AND seq = ?");
    move.run(total * 10 + 1, "run-2", 3);
    move.run(total * 10 + 2, "run-2", 90);
    move.run(total * 10 + 3, "run-11", 1);
  },
};

for (const [name, tamper] of Object.entries(tampers)) {
  test(`the paged chain check of a store finds what a check of its whole trail finds: ${name}`, async (t) => {
    const folder = mkdtempSync(join(tmpdir(), "leash-paged-chains-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, "log.db");
    // 120 runs of 100 records, interleaved: a run's records lie on every page of the trail.
    const store = await interleavedStore(path, 120, 100);
    const { signerKey, verifierKey } = keygen(origin);
    const note = await signCheckpoint(store, { key: signerKey, origin });
    assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
    await store.close();
    const database = new Database(path);
    tamper(database, 120 * 100);
    database.close();
    const tampered = new SqliteStore(path);
    t.after(() => tampered.close());
    const whole = verifyAudit(tampered.records);
    assert.ok(whole.length > 0);
    assert.deepEqual(await chainProblems(tampered, note, verifierKey), whole);
  });
}
