import type { AuditHead, AuditRecord } from "../../audit/audit-record.js";
import { checkChain } from "../../audit/chain-heads.js";
import { parseAuditRecord } from "../../audit/parse-audit-record.js";
import { LeashError, messageOf } from "../../errors/index.js";
import { SQLSTATE, sqlState } from "./postgres-errors.js";
import type { PostgresClient } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";
import { digestInText } from "../record-text-digest.js";

/**
 * The last stored record of each of these runs, read in the caller's transaction from plain columns
 * (no JSON is parsed in SQL, so no record's content can make the query fail).
 */
async function storedHeads(
  client: PostgresClient,
  tables: PostgresTables,
  runIds: string[],
): Promise<Map<string, AuditHead>> {
  const result = await client.query(
    `SELECT DISTINCT ON (run_id) run_id, seq, digest, CASE WHEN digest IS NULL THEN record END AS record
     FROM ${tables.audit} WHERE run_id = ANY($1::text[]) ORDER BY run_id, seq DESC`,
    [runIds],
  );
  const heads = new Map<string, AuditHead>();
  for (const row of result.rows) {
    const runId = String(row.run_id);
    const seq = Number(row.seq);
    const digest = typeof row.digest === "string" ? row.digest : digestInText(row.record);
    if (digest === null) {
      throw new LeashError("audit_corrupt", `The last stored record of run \`${runId}\` (seq ${seq}) has no digest.`, {
        details: { runId, seq },
      });
    }
    heads.set(runId, { seq, digest });
  }
  return heads;
}

/**
 * Inserts audit records in the caller's transaction, in one statement and in order, so `position`
 * follows each run's seq order. Each run's records must continue its stored chain, checked before
 * anything is written: a record at a seq the trail holds already is `stale_state` (another writer
 * moved the chain), a gap or a wrong `prev` is `audit_corrupt`. A record whose (run, seq) place is
 * taken by a writer that committed in the meantime is a second writer extending the same chain:
 * `onDuplicate` says what to throw instead of the driver's unique violation.
 */
export async function insertRecords(
  client: PostgresClient,
  tables: PostgresTables,
  records: readonly AuditRecord[],
  onDuplicate: (error: unknown) => Error,
): Promise<void> {
  if (records.length === 0) return;
  const heads = await storedHeads(client, tables, [...new Set(records.map((record) => record.run))]);
  checkChain(records, (runId) => heads.get(runId) ?? null);
  try {
    await client.query(
      `INSERT INTO ${tables.audit} (run_id, seq, record, digest)
       SELECT run_id, seq, record, digest FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS batch (run_id, seq, record, digest, ordinal)
       ORDER BY ordinal`,
      [
        records.map((record) => record.run),
        records.map((record) => record.seq),
        records.map((record) => JSON.stringify(record)),
        records.map((record) => record.digest),
      ],
    );
  } catch (error) {
    if (sqlState(error) === SQLSTATE.uniqueViolation) throw onDuplicate(error);
    throw error;
  }
}

/**
 * Parses a record read back from the table: checked, never cast. A row that is not a record is
 * `audit_corrupt`, naming its run and seq.
 */
export function parseStoredRecord(text: unknown, runId: unknown, seq: unknown): AuditRecord {
  let value: unknown;
  let problem: string | undefined;
  try {
    value = JSON.parse(String(text));
  } catch (error) {
    problem = `it is not JSON (${messageOf(error)})`;
  }
  const record = problem ?? parseAuditRecord(value);
  if (typeof record === "string") {
    throw new LeashError(
      "audit_corrupt",
      `The stored audit record of run \`${String(runId)}\` at seq ${String(seq)} is not a record: ${record}.`,
      {
        details: { runId: String(runId), seq: Number(seq) },
      },
    );
  }
  return record;
}

/**
 * Puts each run's records in seq order while keeping the places the runs hold in the order written:
 * rows written by concurrent transactions may take positions out of their seq order.
 */
export function inSeqOrder(records: AuditRecord[]): AuditRecord[] {
  const byRun = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const list = byRun.get(record.run);
    if (list === undefined) byRun.set(record.run, [record]);
    else list.push(record);
  }
  for (const list of byRun.values()) list.sort((left, right) => left.seq - right.seq);
  const next = new Map<string, number>();
  return records.map((record) => {
    const index = next.get(record.run) ?? 0;
    next.set(record.run, index + 1);
    return byRun.get(record.run)?.[index] ?? record;
  });
}
