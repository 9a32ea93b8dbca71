import type { AuditRecord } from "../../audit/audit-record.js";
import { recordLeafHash } from "../../evidence/evidence-log.js";
import type { CheckpointRow, LogTables, RecordLeaf } from "../../evidence/log-tables.js";
import { MerkleLog } from "../../evidence/merkle-log.js";
import { digestInText } from "../record-text-digest.js";
import { parseStoredRecord } from "./postgres-audit-rows.js";
import { storeFailed } from "./postgres-errors.js";
import { PostgresNodeStore } from "./postgres-log-nodes.js";
import type { PostgresClient, PostgresPool, PostgresQueryResult } from "./postgres-pool.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** How many records one sequencing transaction takes, so that it never holds the log's lock long. */
const SEQUENCE_BATCH = 8192;

/** How many rows a page of the trail (or of its digest columns) holds: memory stays flat in the trail's size. */
const TRAIL_PAGE = 4096;

// The first key of the advisory lock that makes one sequencer at a time ("lseq" in ASCII); the second
// is a hash of the schema name, as for migrations, so logs in different schemas never wait on each other.
const SEQUENCER_LOCK = 0x6c736571;

const rowOf = (row: Record<string, unknown>): CheckpointRow => ({
  id: Number(row.id),
  treeSize: Number(row.tree_size),
  note: String(row.note),
  createdAt: new Date(row.created_at as string | Date).toISOString(),
});

/**
 * The {@link LogTables} of a {@link PostgresStore}: `leash_audit.leaf_index`, `leash_log_nodes` and
 * `leash_checkpoints`. Concurrent writers' positions can commit out of order, so the sequencer never
 * reads "positions after the last leaf": under a transaction advisory lock (one sequencer at a time,
 * in any process) it takes the committed rows still without a leaf index, in position order, through
 * a partial index. A row that commits later with a lower position is simply sequenced later; a
 * prefix that was sequenced (and perhaps signed) is never reordered.
 */
export class PostgresLogTables implements LogTables {
  readonly nodes: PostgresNodeStore;
  readonly #pool: () => Promise<PostgresPool>;
  readonly #tables: PostgresTables;

  constructor(pool: () => Promise<PostgresPool>, tables: PostgresTables) {
    this.#pool = pool;
    this.#tables = tables;
    this.nodes = new PostgresNodeStore(pool, tables);
  }

  async sequence(): Promise<number> {
    const pending = await this.#query(
      "looking for records not sequenced",
      `SELECT 1 FROM ${this.#tables.audit} WHERE leaf_index IS NULL LIMIT 1`,
    );
    if (pending.rows.length > 0) {
      const pool = await this.#pool();
      while (await inTransaction(pool, "sequencing the log", (client) => this.#sequenceOnce(client))) {
        // Each batch commits on its own, so the lock is held for one batch at a time.
      }
    }
    return this.headSize();
  }

  async headSize(): Promise<number> {
    const result = await this.#query(
      "reading the log's size",
      `SELECT leaf_index FROM ${this.#tables.audit} WHERE leaf_index IS NOT NULL ORDER BY leaf_index DESC LIMIT 1`,
    );
    const head = result.rows[0];
    return head === undefined ? 0 : Number(head.leaf_index) + 1;
  }

  async leafCount(): Promise<number> {
    const result = await this.#query(
      "counting the log's leaves",
      `SELECT count(*) AS count FROM ${this.#tables.audit} WHERE leaf_index IS NOT NULL`,
    );
    return Number(result.rows[0]?.count ?? 0);
  }

  async recordLeaves(start: number, end: number): Promise<RecordLeaf[]> {
    const result = await this.#query(
      "reading the log's leaves",
      `SELECT leaf_index, record FROM ${this.#tables.audit} WHERE leaf_index >= $1 AND leaf_index < $2 ORDER BY leaf_index`,
      [start, end],
    );
    return result.rows.map((row) => ({
      leafIndex: Number(row.leaf_index),
      hash: recordLeafHash(digestInText(row.record) ?? ""),
    }));
  }

  /**
   * Concurrent writers' positions can commit out of their runs' seq order, so the chain check takes
   * each run's records in seq order: the order of rows says nothing here.
   */
  readonly runsInSeqOrder = true;

  async *trailPages(): AsyncGenerator<AuditRecord[]> {
    const doing = "reading the trail";
    const pool = await this.#pool();
    let client: PostgresClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw storeFailed(error, doing);
    }
    let open = false;
    let broken = false;
    try {
      // One snapshot for every page (a cursor in a read-only repeatable-read transaction): the walk
      // sees the trail as it was when it began, whatever commits meanwhile, one page in memory at a time.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      open = true;
      await client.query(
        `DECLARE leash_trail NO SCROLL CURSOR FOR
         SELECT run_id, seq, record FROM ${this.#tables.audit} ORDER BY leaf_index NULLS LAST, position`,
      );
      for (;;) {
        const page = await client.query(`FETCH FORWARD ${TRAIL_PAGE} FROM leash_trail`);
        if (page.rows.length === 0) break;
        yield page.rows.map((row) => parseStoredRecord(row.record, row.run_id, row.seq));
      }
      await client.query("COMMIT");
      open = false;
    } catch (error) {
      throw storeFailed(error, doing);
    } finally {
      if (open) {
        // A walk stopped early (or failed) ends its transaction; one that cannot is not reused.
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
      }
      client.release(broken);
    }
  }

  async recordsBetween(start: number, end: number): Promise<AuditRecord[]> {
    const result = await this.#query(
      "reading the log's records",
      `SELECT run_id, seq, record FROM ${this.#tables.audit} WHERE leaf_index >= $1 AND leaf_index < $2 ORDER BY leaf_index`,
      [start, end],
    );
    return result.rows.map((row) => parseStoredRecord(row.record, row.run_id, row.seq));
  }

  async digestOf(runId: string, seq: number): Promise<string | null> {
    const result = await this.#query(
      "reading a record's digest",
      `SELECT record FROM ${this.#tables.audit} WHERE run_id = $1 AND seq = $2`,
      [runId, seq],
    );
    const row = result.rows[0];
    return row === undefined ? null : digestInText(row.record);
  }

  async digestMismatches(): Promise<{ run: string; seq: number }[]> {
    const mismatches: { run: string; seq: number }[] = [];
    // A page at a time, after the last position read: the rows' texts are never all in memory.
    for (let after = "0"; ;) {
      const result = await this.#query(
        "reading the records' digest columns",
        `SELECT position, run_id, seq, digest, record FROM ${this.#tables.audit}
         WHERE position > $1 AND digest IS NOT NULL ORDER BY position LIMIT $2`,
        [after, TRAIL_PAGE],
      );
      for (const row of result.rows) {
        if (row.digest !== digestInText(row.record)) mismatches.push({ run: String(row.run_id), seq: Number(row.seq) });
      }
      if (result.rows.length < TRAIL_PAGE) break;
      after = String(result.rows.at(-1)!.position);
    }
    return mismatches.sort((left, right) =>
      left.run === right.run ? left.seq - right.seq : left.run < right.run ? -1 : 1,
    );
  }

  async storedRunIds(after: string | null, limit: number): Promise<string[]> {
    // By the primary key of the runs (the comparison and the order in one collation, so that pages
    // neither skip nor repeat a run), so that the check of every saved state holds a page of them.
    const result = await this.#query(
      "reading the stored runs' ids",
      `SELECT run_id FROM ${this.#tables.runs} WHERE $1::text IS NULL OR run_id > $1 ORDER BY run_id LIMIT $2`,
      [after, limit],
    );
    return result.rows.map((row) => String(row.run_id));
  }

  async leafIndexOf(runId: string, seq: number): Promise<number | null> {
    const result = await this.#query(
      "reading a record's leaf index",
      `SELECT leaf_index FROM ${this.#tables.audit} WHERE run_id = $1 AND seq = $2`,
      [runId, seq],
    );
    const value = result.rows[0]?.leaf_index;
    return value === undefined || value === null ? null : Number(value);
  }

  async checkpointsAt(treeSize: number): Promise<CheckpointRow[]> {
    const result = await this.#query(
      "reading stored checkpoints",
      `SELECT id, tree_size, note, created_at FROM ${this.#tables.checkpoints} WHERE tree_size = $1 ORDER BY id`,
      [treeSize],
    );
    return result.rows.map(rowOf);
  }

  async checkpointRows(): Promise<CheckpointRow[]> {
    const result = await this.#query(
      "reading stored checkpoints",
      `SELECT id, tree_size, note, created_at FROM ${this.#tables.checkpoints} ORDER BY id`,
    );
    return result.rows.map(rowOf);
  }

  async latestCheckpointRow(): Promise<CheckpointRow | null> {
    const result = await this.#query(
      "reading the latest checkpoint",
      `SELECT id, tree_size, note, created_at FROM ${this.#tables.checkpoints} ORDER BY tree_size DESC, id DESC LIMIT 1`,
    );
    const row = result.rows[0];
    return row === undefined ? null : rowOf(row);
  }

  async insertCheckpoint(treeSize: number, note: string): Promise<CheckpointRow> {
    const result = await this.#query(
      "storing a checkpoint",
      `INSERT INTO ${this.#tables.checkpoints} (tree_size, note) VALUES ($1, $2) RETURNING id, tree_size, note, created_at`,
      [treeSize, note],
    );
    return rowOf(result.rows[0]!);
  }

  async updateCheckpoint(id: number, note: string): Promise<void> {
    await this.#query("storing a checkpoint", `UPDATE ${this.#tables.checkpoints} SET note = $1 WHERE id = $2`, [
      note,
      id,
    ]);
  }

  async #query(doing: string, text: string, values?: unknown[]): Promise<PostgresQueryResult> {
    return queryOnce(await this.#pool(), doing, text, values);
  }

  /** One batch, in the caller's transaction: true when a full batch was taken (there may be more). */
  async #sequenceOnce(client: { query: PostgresPool["query"] }): Promise<boolean> {
    const { audit } = this.#tables;
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SEQUENCER_LOCK, this.#tables.schema]);
    // Read after the lock is held: each statement of a READ COMMITTED transaction sees every commit
    // before it, so the previous sequencer's indexes and every row committed since are seen here.
    const head = await client.query(
      `SELECT leaf_index FROM ${audit} WHERE leaf_index IS NOT NULL ORDER BY leaf_index DESC LIMIT 1`,
    );
    const size = head.rows[0] === undefined ? 0 : Number(head.rows[0].leaf_index) + 1;
    const rows = await client.query(
      `SELECT position, record FROM ${audit} WHERE leaf_index IS NULL ORDER BY position LIMIT $1`,
      [SEQUENCE_BATCH],
    );
    if (rows.rows.length === 0) return false;
    const nodes = new PostgresNodeStore(() => Promise.resolve(client), this.#tables);
    const log = await MerkleLog.open(nodes, size);
    // The leaf is the digest in the record's text, never the digest column alone: one can be changed by hand.
    await log.append(rows.rows.map((row) => recordLeafHash(digestInText(row.record) ?? "")));
    await client.query(
      `UPDATE ${audit} SET leaf_index = assigned.leaf_index
       FROM unnest($1::bigint[], $2::bigint[]) AS assigned (position, leaf_index)
       WHERE ${audit}.position = assigned.position`,
      [rows.rows.map((row) => row.position), rows.rows.map((_, offset) => size + offset)],
    );
    return rows.rows.length === SEQUENCE_BATCH;
  }
}
