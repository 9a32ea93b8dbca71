import type { Database, Statement } from "better-sqlite3";
import type { AuditRecord } from "../../audit/audit-record.js";
import { recordLeafHash } from "../../evidence/evidence-log.js";
import { storeEvidenceLog, type StoreEvidenceLog } from "../../evidence/store-evidence-log.js";
import type { CheckpointRow, LogTables, RecordLeaf } from "../../evidence/log-tables.js";
import { rangeNodes } from "../../evidence/merkle.js";
import { MerkleLog } from "../../evidence/merkle-log.js";
import { digestInText } from "../record-text-digest.js";
import { toLeashError } from "./sqlite-errors.js";
import { SqliteNodeStore } from "./sqlite-log-nodes.js";
import type { SqliteTrail } from "./sqlite-trail.js";

/** How many records one sequencing transaction takes, so that it never holds the write lock long. */
const SEQUENCE_BATCH = 8192;

/** How many records a page of the trail holds, for the chain check: memory stays flat in the trail's size. */
const TRAIL_PAGE = 4096;

interface Unsequenced {
  position: number;
  record: string | null;
}

interface CheckpointRecord {
  id: number;
  tree_size: number;
  note: string;
  created_at: string;
}

const rowOf = (row: CheckpointRecord): CheckpointRow => ({
  id: row.id,
  treeSize: row.tree_size,
  note: row.note,
  createdAt: row.created_at,
});

/**
 * The {@link LogTables} of a {@link SqliteStore}: `audit.leaf_index`, `leash_log_nodes` and
 * `leash_checkpoints`. SQLite commits one writer at a time and `position` is taken at insert as the
 * largest plus one, so positions commit in order: the records not yet sequenced are exactly those
 * after the position of the last leaf, found through the primary key, and a step's insert pays for
 * no index of the log.
 */
export class SqliteLogTables implements LogTables {
  readonly nodes: SqliteNodeStore;
  readonly #trail: SqliteTrail;
  readonly #head: Statement<[], { leaf_index: number; position: number }>;
  readonly #pending: Statement<[number], unknown>;
  readonly #unsequenced: Statement<[number, number], Unsequenced>;
  readonly #assign: Statement<[number, number]>;
  readonly #assignRange: Statement<[number, number, number]>;
  readonly #count: Statement<[], { count: number }>;
  readonly #leaves: Statement<[number, number], { leaf_index: number; record: string }>;
  readonly #leafOf: Statement<[string, number], { leaf_index: number | null }>;
  readonly #between: Statement<[number, number], { run_id: string; seq: number; record: string }>;
  readonly #digestOf: Statement<[string, number], { record: string }>;
  readonly #columns: Statement<[], { run_id: string; seq: number; digest: string; record: string }>;
  readonly #lastPosition: Statement<[], { position: number | null }>;
  readonly #runIds: Statement<[string, number], { run_id: string }>;
  readonly #firstRunIds: Statement<[number], { run_id: string }>;
  readonly #trailPage: Statement<
    [number, number, number],
    { position: number; run_id: string; seq: number; record: string }
  >;
  readonly #checkpointsAt: Statement<[number], CheckpointRecord>;
  readonly #checkpoints: Statement<[], CheckpointRecord>;
  readonly #latest: Statement<[], CheckpointRecord>;
  readonly #insertCheckpoint: Statement<[number, string, string], CheckpointRecord>;
  readonly #updateCheckpoint: Statement<[string, number]>;
  readonly #sequenceBatch: () => boolean;

  constructor(database: Database, trail: SqliteTrail) {
    this.nodes = new SqliteNodeStore(database);
    this.#trail = trail;
    this.#head = database.prepare(
      "SELECT leaf_index, position FROM audit WHERE leaf_index IS NOT NULL ORDER BY leaf_index DESC LIMIT 1",
    );
    this.#pending = database.prepare("SELECT 1 FROM audit WHERE position > ? LIMIT 1");
    this.#unsequenced = database.prepare(
      "SELECT position, record FROM audit WHERE position > ? AND leaf_index IS NULL ORDER BY position LIMIT ?",
    );
    this.#assign = database.prepare("UPDATE audit SET leaf_index = ? WHERE position = ?");
    this.#assignRange = database.prepare(
      "UPDATE audit SET leaf_index = position + ? WHERE position BETWEEN ? AND ? AND leaf_index IS NULL",
    );
    this.#count = database.prepare("SELECT count(*) AS count FROM audit WHERE leaf_index IS NOT NULL");
    this.#leaves = database.prepare(
      "SELECT leaf_index, record FROM audit WHERE leaf_index >= ? AND leaf_index < ? ORDER BY leaf_index",
    );
    this.#leafOf = database.prepare("SELECT leaf_index FROM audit WHERE run_id = ? AND seq = ?");
    this.#between = database.prepare(
      "SELECT run_id, seq, record FROM audit WHERE leaf_index >= ? AND leaf_index < ? ORDER BY leaf_index",
    );
    this.#digestOf = database.prepare("SELECT record FROM audit WHERE run_id = ? AND seq = ?");
    this.#columns = database.prepare(
      "SELECT run_id, seq, digest, record FROM audit WHERE digest IS NOT NULL ORDER BY run_id, seq",
    );
    this.#lastPosition = database.prepare("SELECT max(position) AS position FROM audit");
    // By the primary key of the runs, so that the check of every saved state holds a page of them.
    this.#runIds = database.prepare("SELECT run_id FROM runs WHERE run_id > ? ORDER BY run_id LIMIT ?");
    this.#firstRunIds = database.prepare("SELECT run_id FROM runs ORDER BY run_id LIMIT ?");
    // By the primary key, a page after the last: a page never waits on a writer, and a record
    // committed during the walk (always at a higher position) is simply read or not, never half.
    this.#trailPage = database.prepare(
      "SELECT position, run_id, seq, record FROM audit WHERE position > ? AND position <= ? ORDER BY position LIMIT ?",
    );
    const columns = "id, tree_size, note, created_at";
    this.#checkpointsAt = database.prepare(`SELECT ${columns} FROM leash_checkpoints WHERE tree_size = ? ORDER BY id`);
    this.#checkpoints = database.prepare(`SELECT ${columns} FROM leash_checkpoints ORDER BY id`);
    this.#latest = database.prepare(
      `SELECT ${columns} FROM leash_checkpoints ORDER BY tree_size DESC, id DESC LIMIT 1`,
    );
    this.#insertCheckpoint = database.prepare(
      `INSERT INTO leash_checkpoints (tree_size, note, created_at) VALUES (?, ?, ?) RETURNING ${columns}`,
    );
    this.#updateCheckpoint = database.prepare("UPDATE leash_checkpoints SET note = ? WHERE id = ?");
    const batch = database.transaction(() => this.#sequenceOnce());
    this.#sequenceBatch = () => batch.immediate();
  }

  sequence(): number {
    // Without the write lock first: a log that is caught up costs two reads and never waits on a writer.
    if (this.#pending.get(this.#headRow()?.position ?? -1) !== undefined) {
      while (this.#sequenceBatch());
    }
    return this.headSize();
  }

  headSize(): number {
    const head = this.#headRow();
    return head === undefined ? 0 : head.leaf_index + 1;
  }

  leafCount(): number {
    return this.#count.get()!.count;
  }

  recordLeaves(start: number, end: number): RecordLeaf[] {
    return this.#leaves
      .all(start, end)
      .map((row) => ({ leafIndex: row.leaf_index, hash: recordLeafHash(digestInText(row.record) ?? "") }));
  }

  recordsBetween(start: number, end: number): AuditRecord[] {
    return this.#between.all(start, end).map((row) => this.#trail.parse(row));
  }

  digestOf(runId: string, seq: number): string | null {
    const row = this.#digestOf.get(runId, seq);
    return row === undefined ? null : digestInText(row.record);
  }

  digestMismatches(): { run: string; seq: number }[] {
    const mismatches: { run: string; seq: number }[] = [];
    for (const row of this.#columns.iterate()) {
      if (row.digest !== digestInText(row.record)) mismatches.push({ run: row.run_id, seq: row.seq });
    }
    return mismatches;
  }

  *trailPages(): Generator<AuditRecord[]> {
    // The trail as it is when the walk starts: records appended meanwhile wait for the next check.
    const last = this.#lastPosition.get()?.position ?? null;
    if (last === null) return;
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const rows = this.#trailPage.all(after, last, TRAIL_PAGE);
      if (rows.length === 0) return;
      after = rows.at(-1)!.position;
      yield rows.map((row) => this.#trail.parse(row));
    }
  }

  storedRunIds(after: string | null, limit: number): string[] {
    const rows = after === null ? this.#firstRunIds.all(limit) : this.#runIds.all(after, limit);
    return rows.map((row) => row.run_id);
  }

  leafIndexOf(runId: string, seq: number): number | null {
    return this.#leafOf.get(runId, seq)?.leaf_index ?? null;
  }

  checkpointsAt(treeSize: number): CheckpointRow[] {
    return this.#checkpointsAt.all(treeSize).map(rowOf);
  }

  checkpointRows(): CheckpointRow[] {
    return this.#checkpoints.all().map(rowOf);
  }

  latestCheckpointRow(): CheckpointRow | null {
    const row = this.#latest.get();
    return row === undefined ? null : rowOf(row);
  }

  insertCheckpoint(treeSize: number, note: string): CheckpointRow {
    return rowOf(this.#insertCheckpoint.get(treeSize, note, new Date().toISOString())!);
  }

  updateCheckpoint(id: number, note: string): void {
    this.#updateCheckpoint.run(note, id);
  }

  #headRow(): { leaf_index: number; position: number } | undefined {
    return this.#head.get();
  }

  /** One batch, inside an immediate transaction: true when a full batch was taken (there may be more). */
  #sequenceOnce(): boolean {
    const head = this.#headRow();
    const size = head === undefined ? 0 : head.leaf_index + 1;
    const rows = this.#unsequenced.all(head?.position ?? -1, SEQUENCE_BATCH);
    if (rows.length === 0) return false;
    const edge = rangeNodes(0, size);
    const log = MerkleLog.resume(this.nodes, size, edge.length === 0 ? [] : this.nodes.readNodes(edge));
    // The leaf is the digest in the record's text, never the digest column alone: one can be changed by hand.
    void log.append(rows.map((row) => recordLeafHash(digestInText(row.record) ?? "")));
    const first = rows[0]!.position;
    const last = rows.at(-1)!.position;
    // Positions without a gap (as SQLite gives them, unless rows were deleted) take one statement.
    if (last - first === rows.length - 1) this.#assignRange.run(size - first, first, last);
    else rows.forEach((row, offset) => this.#assign.run(size + offset, row.position));
    return rows.length === SEQUENCE_BATCH;
  }
}

/**
 * The evidence log of a {@link SqliteStore} over its {@link SqliteLogTables}, every driver error
 * mapped as the store's own are (`store_busy`, `store_failed`), so no raw driver error escapes.
 */
export function sqliteEvidenceLog(tables: SqliteLogTables, path: string): StoreEvidenceLog {
  const guard =
    <A extends unknown[], R>(method: string, body: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return body(...args);
      } catch (error) {
        throw toLeashError(error, { method, path });
      }
    };
  return storeEvidenceLog({
    nodes: {
      readNodes: guard("readNodes", (nodes) => tables.nodes.readNodes(nodes)),
      writeNodes: guard("writeNodes", (nodes) => tables.nodes.writeNodes(nodes)),
    },
    sequence: guard("sequence", () => tables.sequence()),
    headSize: guard("headSize", () => tables.headSize()),
    leafCount: guard("leafCount", () => tables.leafCount()),
    recordLeaves: guard("recordLeaves", (start: number, end: number) => tables.recordLeaves(start, end)),
    trailPages: () =>
      guardedPages(
        () => tables.trailPages(),
        (error) => toLeashError(error, { method: "trailPages", path }),
      ),
    recordsBetween: guard("recordsBetween", (start: number, end: number) => tables.recordsBetween(start, end)),
    digestOf: guard("digestOf", (runId: string, seq: number) => tables.digestOf(runId, seq)),
    digestMismatches: guard("digestMismatches", () => tables.digestMismatches()),
    leafIndexOf: guard("leafIndexOf", (runId: string, seq: number) => tables.leafIndexOf(runId, seq)),
    storedRunIds: guard("storedRunIds", (after: string | null, limit: number) => tables.storedRunIds(after, limit)),
    checkpointsAt: guard("checkpointsAt", (treeSize: number) => tables.checkpointsAt(treeSize)),
    checkpointRows: guard("checkpoints", () => tables.checkpointRows()),
    latestCheckpointRow: guard("latestCheckpoint", () => tables.latestCheckpointRow()),
    insertCheckpoint: guard("saveCheckpoint", (treeSize: number, note: string) =>
      tables.insertCheckpoint(treeSize, note),
    ),
    updateCheckpoint: guard("saveCheckpoint", (id: number, note: string) => tables.updateCheckpoint(id, note)),
  });
}

/** The pages of a synchronous reader, each read with its driver errors mapped. */
function* guardedPages<T>(pages: () => Iterator<T>, mapped: (error: unknown) => Error): Generator<T> {
  let iterator: Iterator<T>;
  try {
    iterator = pages();
  } catch (error) {
    throw mapped(error);
  }
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = iterator.next();
    } catch (error) {
      throw mapped(error);
    }
    if (next.done === true) return;
    yield next.value;
  }
}
