import type { Database, Statement } from "better-sqlite3";
import type { AuditHead, AuditRecord } from "../../audit/audit-record.js";
import { checkChain } from "../../audit/chain-heads.js";
import { parseAuditRecord } from "../../audit/parse-audit-record.js";
import { LeashError, StateError } from "../../errors/index.js";
import { isKeyViolation } from "./sqlite-errors.js";
import { digestInText } from "../record-text-digest.js";
import type { RecordWrite } from "./sqlite-run-write.js";

interface TrailRow {
  run_id: string;
  seq: number;
  record: string;
}

/**
 * The audit table of a {@link SqliteStore}: writes records inside the caller's transaction, refusing
 * any that do not continue their run's chain, and reads them back checked, never cast.
 */
export class SqliteTrail {
  readonly #path: string;
  readonly #insert: Statement<[string, number, string, string]>;
  readonly #head: Statement<[string], { seq: number; digest: unknown; record: unknown }>;
  readonly #ofRun: Statement<[string], TrailRow>;
  readonly #all: Statement<[], TrailRow>;
  readonly #holds: Statement<[string], unknown>;

  constructor(database: Database, path: string) {
    this.#path = path;
    this.#insert = database.prepare("INSERT INTO audit (run_id, seq, record, digest) VALUES (?, ?, ?, ?)");
    // Plain columns only: no JSON is parsed in SQL, so no record's content can make the lookup fail.
    this.#head = database.prepare(
      "SELECT seq, digest, CASE WHEN digest IS NULL THEN record END AS record FROM audit WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
    );
    this.#ofRun = database.prepare("SELECT run_id, seq, record FROM audit WHERE run_id = ? ORDER BY seq");
    this.#all = database.prepare("SELECT run_id, seq, record FROM audit ORDER BY position");
    this.#holds = database.prepare("SELECT 1 FROM audit WHERE run_id = ? LIMIT 1");
  }

  /** Whether the trail holds any record of a run. */
  holds(runId: string): boolean {
    return this.#holds.get(runId) !== undefined;
  }

  /**
   * Inserts records inside the caller's (immediate) transaction. Each run's records must continue
   * its stored chain: a record at a seq the trail already holds means another writer moved the chain
   * since this one read it (`stale_state`); a record that skips a seq or links to another digest than
   * the record before it is `audit_corrupt`. Either way the caller's transaction (or savepoint) rolls
   * back, so nothing of the batch (or of the state saved with it) is written.
   */
  insert(write: RecordWrite): void {
    const { records, texts } = write;
    checkChain(records, (runId) => this.#storedHead(runId));
    records.forEach((record, index) => {
      try {
        this.#insert.run(record.run, record.seq, texts[index]!, record.digest);
      } catch (error) {
        // The key on (run_id, seq) is the last word when two writers race past the check above.
        if (isKeyViolation(error)) {
          throw new StateError(
            "stale_state",
            `The trail of run \`${record.run}\` already holds seq ${record.seq}: another writer moved the chain.`,
            {
              details: { runId: record.run, seq: record.seq },
              cause: error,
            },
          );
        }
        throw error;
      }
    });
  }

  /** One run's records in seq order, or every record in the order written. */
  read(runId?: string): AuditRecord[] {
    const rows = runId === undefined ? this.#all.all() : this.#ofRun.all(runId);
    return rows.map((row) => this.parse(row));
  }

  #storedHead(runId: string): AuditHead | null {
    const row = this.#head.get(runId);
    if (row === undefined) return null;
    if (typeof row.digest === "string") return { seq: row.seq, digest: row.digest };
    // A row written before the digest had a column of its own: its digest is in its text.
    const digest = digestInText(row.record);
    if (digest === null) {
      throw new LeashError(
        "audit_corrupt",
        `The last record of run \`${runId}\` in \`${this.#path}\` (seq ${row.seq}) has no digest.`,
        {
          details: { path: this.#path, runId, seq: row.seq },
        },
      );
    }
    return { seq: row.seq, digest };
  }

  /** A stored row as a record, checked (never cast): `audit_corrupt` naming it when it is not one. */
  parse(row: TrailRow): AuditRecord {
    const corrupt = (problem: string): LeashError =>
      new LeashError(
        "audit_corrupt",
        `Record ${row.seq} of run \`${row.run_id}\` in \`${this.#path}\` is not an audit record: ${problem}.`,
        {
          details: { path: this.#path, runId: row.run_id, seq: row.seq },
        },
      );
    let value: unknown;
    try {
      value = JSON.parse(row.record);
    } catch (error) {
      throw corrupt(`it is not JSON (${(error as Error).message})`);
    }
    const record = parseAuditRecord(value);
    if (typeof record === "string") throw corrupt(record);
    if (record.run !== row.run_id || record.seq !== row.seq)
      throw corrupt(`it says run \`${record.run}\` seq ${record.seq}`);
    return record;
  }
}
