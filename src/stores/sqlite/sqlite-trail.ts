import type { Database, Statement } from "better-sqlite3";
import type { AuditHead, AuditRecord } from "../../audit/audit-record.js";
import { checkRecords } from "../../audit/check-records.js";
import { parseAuditRecord } from "../../audit/parse-audit-record.js";
import { LeashError, StateError } from "../../errors/index.js";
import { isKeyViolation } from "./sqlite-errors.js";

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
  readonly #insert: Statement<[string, number, string]>;
  readonly #head: Statement<[string], { seq: number; digest: unknown }>;
  readonly #ofRun: Statement<[string], TrailRow>;
  readonly #all: Statement<[], TrailRow>;
  readonly #holds: Statement<[string], unknown>;

  constructor(database: Database, path: string) {
    this.#path = path;
    this.#insert = database.prepare("INSERT INTO audit (run_id, seq, record) VALUES (?, ?, ?)");
    this.#head = database.prepare(
      "SELECT seq, json_extract(record, '$.digest') AS digest FROM audit WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
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
   * the record before it is `audit_corrupt`. Either way the caller's transaction rolls
   * back, so nothing of the batch (or of the state saved with it) is written.
   */
  insert(records: readonly AuditRecord[]): void {
    const checked = checkRecords(records);
    const heads = new Map<string, AuditHead | null>();
    for (const record of checked) {
      const known = heads.has(record.run);
      const head = known ? (heads.get(record.run) ?? null) : this.#storedHead(record.run);
      const expectedSeq = head === null ? 0 : head.seq + 1;
      const expectedPrev = head === null ? null : head.digest;
      if (record.seq !== expectedSeq || record.prev !== expectedPrev) {
        const details = { runId: record.run, seq: record.seq, expectedSeq };
        // A writer that read the head earlier builds on an older seq; anything else (a gap, a link to
        // another digest, a batch that skips) was never made by the core's chain.
        if (!known && record.seq < expectedSeq) {
          throw new StateError(
            "stale_state",
            `The trail of run \`${record.run}\` ends at seq ${expectedSeq - 1}, so record ${record.seq} does not continue it: another writer moved the chain.`,
            { details },
          );
        }
        throw new LeashError(
          "audit_corrupt",
          `Record ${record.seq} of run \`${record.run}\` does not continue its chain (expected seq ${expectedSeq} linking to the record before it); nothing was written.`,
          { details },
        );
      }
      try {
        this.#insert.run(record.run, record.seq, JSON.stringify(record));
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
      heads.set(record.run, { seq: record.seq, digest: record.digest });
    }
  }

  /** One run's records in seq order, or every record in the order written. */
  read(runId?: string): AuditRecord[] {
    const rows = runId === undefined ? this.#all.all() : this.#ofRun.all(runId);
    return rows.map((row) => this.#parse(row));
  }

  #storedHead(runId: string): AuditHead | null {
    const row = this.#head.get(runId);
    if (row === undefined) return null;
    if (typeof row.digest !== "string") {
      throw new LeashError(
        "audit_corrupt",
        `The last record of run \`${runId}\` in \`${this.#path}\` (seq ${row.seq}) has no digest.`,
        {
          details: { path: this.#path, runId, seq: row.seq },
        },
      );
    }
    return { seq: row.seq, digest: row.digest };
  }

  #parse(row: TrailRow): AuditRecord {
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
