// Tampering with a store's trail as an operator with write access can: the audit rows and each run's
// saved auditHead, kept consistent so that plain `leash verify` still passes.
import Database from "better-sqlite3";
import { recordDigest } from "../../src/index.js";
import type { AuditRecord } from "../../src/index.js";
import { sql } from "../postgres/database.js";
import type { CliStore } from "./cli-stores.js";

/** Plain SQL on a test's store, whatever its kind: `?` placeholders, table names without a schema. */
export type Query = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Runs plain SQL on a test's store, SQLite or PostgreSQL alike. */
export function queryOf(target: CliStore): Query {
  if (target.kind === "sqlite") {
    const file = target.args[1]!;
    return (text, params = []) => {
      const database = new Database(file);
      try {
        const statement = database.prepare(text);
        return Promise.resolve(
          statement.reader ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []),
        );
      } finally {
        database.close();
      }
    };
  }
  const url = target.args[1]!;
  const schema = target.args[3]!;
  return async (text, params = []) => {
    let index = 0;
    const named = text
      .replace(/\?/g, () => `$${++index}`)
      .replace(/\bleash_log_nodes\b/g, `"${schema}".leash_log_nodes`)
      .replace(/\b(audit|runs|steps)\b/g, (table) => `"${schema}".leash_${table}`);
    return (await sql(url, named, params)).rows as Record<string, unknown>[];
  };
}

/** One run's records, in seq order. */
async function recordsOf(query: Query, run: string): Promise<AuditRecord[]> {
  const rows = await query("SELECT record FROM audit WHERE run_id = ? ORDER BY seq", [run]);
  return rows.map((row) => JSON.parse(String(row.record)) as AuditRecord);
}

/** Points a run's saved state at a new head, as the tamperer must for the state's check to pass. */
async function setHead(query: Query, run: string, head: AuditRecord | undefined): Promise<void> {
  const [row] = await query("SELECT state FROM runs WHERE run_id = ?", [run]);
  const state = JSON.parse(String(row!.state)) as Record<string, unknown>;
  state.auditHead = head === undefined ? null : { seq: head.seq, digest: head.digest };
  await query("UPDATE runs SET state = ? WHERE run_id = ?", [JSON.stringify(state), run]);
}

async function writeRecord(query: Query, record: AuditRecord): Promise<void> {
  await query("UPDATE audit SET record = ?, digest = ? WHERE run_id = ? AND seq = ?", [
    JSON.stringify(record),
    record.digest,
    record.run,
    record.seq,
  ]);
}

/** Rewrites a run's record at `seq` and re-digests it and every later record of its run; moves the head. */
export async function rebuildStoredRun(
  target: CliStore,
  run: string,
  seq: number,
  change: (record: AuditRecord) => AuditRecord,
): Promise<void> {
  const query = queryOf(target);
  const records = await recordsOf(query, run);
  let prev: string | null = seq === 0 ? null : records[seq - 1]!.digest;
  let last: AuditRecord | undefined;
  for (const record of records.slice(seq)) {
    const base = record.seq === seq ? change(record) : record;
    const next = { ...base, prev } as AuditRecord;
    next.digest = recordDigest(next);
    prev = next.digest;
    await writeRecord(query, next);
    last = next;
  }
  await setHead(query, run, last);
}

/** Deletes a run's last `count` records and moves its state's head back to what is left. */
export async function cutStoredTail(target: CliStore, run: string, count: number): Promise<void> {
  const query = queryOf(target);
  const records = await recordsOf(query, run);
  const kept = records.slice(0, records.length - count);
  await query("DELETE FROM audit WHERE run_id = ? AND seq >= ?", [run, kept.length]);
  await setHead(query, run, kept.at(-1));
}

/** Deletes a run: its records, its steps and its state. */
export async function removeStoredRun(target: CliStore, run: string): Promise<void> {
  const query = queryOf(target);
  await query("DELETE FROM audit WHERE run_id = ?", [run]);
  await query("DELETE FROM steps WHERE run_id = ?", [run]);
  await query("DELETE FROM runs WHERE run_id = ?", [run]);
}

/**
 * Throws the store's tree away (every leaf index cleared, every stored subtree deleted) so that the
 * next sequencing rebuilds it from the records as they are now: what an intruder does after rewriting
 * a record, so that the rebuilt tree gives proofs for the rewritten history.
 */
export async function dropStoredTree(target: CliStore): Promise<void> {
  const query = queryOf(target);
  await query("UPDATE audit SET leaf_index = NULL");
  await query("DELETE FROM leash_log_nodes");
}

/** Sets the `digest` column of a run's record at `seq`, leaving its record text as it is. */
export async function setDigestColumn(target: CliStore, run: string, seq: number, digest: string): Promise<void> {
  await queryOf(target)("UPDATE audit SET digest = ? WHERE run_id = ? AND seq = ?", [digest, run, seq]);
}
