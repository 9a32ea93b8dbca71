import type { AuditRecord } from "../audit/audit-record.js";
import type { Hash } from "./merkle.js";
import type { MaybePromise, NodeStore } from "./node-store.js";

/** A checkpoint as a store keeps it: the whole signed note, every signature line included. */
export interface StoredCheckpoint {
  /** The tree size the checkpoint signs. */
  treeSize: number;
  /** The note: the checkpoint's text, a blank line, then the log's signature and any cosignatures. */
  note: string;
  /** When it was first stored (ISO 8601). */
  createdAt: string;
}

/** A stored checkpoint with the key of its row. */
export interface CheckpointRow extends StoredCheckpoint {
  id: number;
}

/** One leaf read back from the records: its index and the leaf hash of the digest in the record's text. */
export interface RecordLeaf {
  leafIndex: number;
  hash: Hash;
}

/**
 * The port a store implements so that `storeEvidenceLog` makes it one Merkle log: its records' leaf
 * indexes, its table of complete subtrees and its table of checkpoints. Each store answers from its
 * own tables (SQLite at once, PostgreSQL through promises); the shared logic lives in
 * `storeEvidenceLog`, once.
 */
export interface LogTables {
  /**
   * Gives the records not yet sequenced the next leaf indexes, in the order they were committed, and
   * appends their leaf hashes to the stored tree, all in one transaction under the log's lock.
   * Returns the log's size after.
   */
  sequence(): MaybePromise<number>;
  /** The log's size as its head says (the highest leaf index + 1): the tree the stored subtrees cover. */
  headSize(): MaybePromise<number>;
  /** How many records hold a leaf index, counted from the records themselves. */
  leafCount(): MaybePromise<number>;
  /**
   * The leaves of the records with leaf indexes in [start, end), in index order, each from the digest
   * in its record's text (what the chain check reads), never from the stored subtrees.
   */
  recordLeaves(start: number, end: number): MaybePromise<RecordLeaf[]>;
  /** The records at leaves [start, end), in leaf order, checked as records (never cast). */
  recordsBetween(start: number, end: number): MaybePromise<readonly AuditRecord[]>;
  /** The digest in the text of a run's record at `seq` (never its column alone), or null when there is none. */
  digestOf(runId: string, seq: number): MaybePromise<string | null>;
  /**
   * The rows whose `digest` column is not the digest in their record's text (a column written by hand,
   * since leash writes both from one record), each with its run and seq; `[]` for a store without one.
   */
  digestMismatches(): MaybePromise<{ run: string; seq: number }[]>;
  /**
   * Every record, in the order of the trail, a page at a time (a few thousand records), read anew
   * from the start at each call: what the chain check walks, so that it never holds the whole trail.
   */
  trailPages(): AsyncIterable<readonly AuditRecord[]> | Iterable<readonly AuditRecord[]>;
  /**
   * Whether the chain check takes each run's records in seq order rather than in the order of the
   * trail: a store whose concurrent writers may commit positions out of seq order says so.
   */
  readonly runsInSeqOrder?: boolean;
  /**
   * The ids of the store's runs (its saved states) after `after` (null: from the first), in the
   * order of ids, at most `limit`: what the check of every saved state pages through, loading each.
   * A store without run states leaves it out.
   */
  storedRunIds?(after: string | null, limit: number): MaybePromise<string[]>;
  /** The leaf index of a run's record, or null when it is not sequenced (or not held). */
  leafIndexOf(runId: string, seq: number): MaybePromise<number | null>;
  /** The stored complete subtrees (level 0: the leaves). */
  readonly nodes: NodeStore;
  /** The stored checkpoints of a tree size, in the order stored. */
  checkpointsAt(treeSize: number): MaybePromise<CheckpointRow[]>;
  /** Every stored checkpoint, in the order stored. */
  checkpointRows(): MaybePromise<CheckpointRow[]>;
  /** The stored checkpoint of the largest tree (the last stored of that size), or null. */
  latestCheckpointRow(): MaybePromise<CheckpointRow | null>;
  /** Stores a new checkpoint row. */
  insertCheckpoint(treeSize: number, note: string): MaybePromise<CheckpointRow>;
  /** Replaces a stored checkpoint's note (the same checkpoint with more signature lines). */
  updateCheckpoint(id: number, note: string): MaybePromise<void>;
}
