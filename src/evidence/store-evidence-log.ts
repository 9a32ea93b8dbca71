import type { AuditProblem } from "../audit/verify-audit.js";
import { verifyAuditPages } from "../audit/verify-audit-pages.js";
import { LeashError } from "../errors/index.js";
import { formatCheckpoint, parseCheckpoint } from "./checkpoint-text.js";
import { checkedCheckpoint, type SaveCheckpointOptions } from "./checked-checkpoint.js";
import type { EvidenceLog } from "./evidence-log.js";
import type { LogTables, StoredCheckpoint } from "./log-tables.js";
import { recordsRootExtending, storedRootExtending, type SignedHead } from "./fork-check.js";
import { sameHash, type Hash } from "./merkle.js";
import { MerkleLog } from "./merkle-log.js";
import { checkNewChains } from "./new-chains.js";
import { signNote, splitNote } from "./signed-note.js";

/**
 * A store as one Merkle log: an {@link EvidenceLog} whose leaves are sequenced into a stored tree, so
 * that roots and proofs read O(log n) stored subtrees, and that keeps its signed checkpoints.
 * `evidenceLogOf(store)` gives one for a `SqliteStore`, a `PostgresStore`, a `MemoryStore` or a
 * `MemoryAuditSink`.
 */
export interface StoreEvidenceLog extends EvidenceLog {
  /**
   * Sequences the records not sequenced yet (in the order they were committed: a sequenced prefix
   * never changes) and returns the log's size. Signing, proofs and `saveCheckpoint` need no call
   * first; this is for a caller that wants the tree to catch up now.
   */
  sequence(): Promise<number>;
  /**
   * The problems of the store's rows that the records alone do not show (`verifyChains` includes
   * them): a row whose `digest` column is not the digest in its record's text (`digest_mismatch`).
   */
  rowProblems(): Promise<AuditProblem[]>;
  /** The root of the tree of the first `size` leaves, from stored subtrees. */
  root(size: number): Promise<Hash>;
  /** The ids of the store's runs after `after`, in id order, at most `limit`; absent for a store that keeps no states. */
  storedRunIds?(after: string | null, limit: number): Promise<string[]>;
  /** The RFC 6962 inclusion proof of leaf `leafIndex` in the tree of `treeSize` leaves (sequenced first). */
  inclusionProof(leafIndex: number, treeSize: number): Promise<Hash[]>;
  /** The RFC 6962 consistency proof from the tree of `m` leaves to that of `n` (sequenced first). */
  consistencyProof(m: number, n: number): Promise<Hash[]>;
  /** The leaf index of a run's record at `seq` (sequenced first), or null when the store holds no such record. */
  leafIndexOf(runId: string, seq: number): Promise<number | null>;
  /**
   * Stores a signed checkpoint of this log, whole. Storing the same checkpoint again with more
   * signature lines (a witness's cosignatures) adds them to the stored note. Refuses, storing nothing,
   * a note that is not a checkpoint of this log under `key` (the log's verifier key): a signature by
   * the key that is missing (`unknown_key`) or does not verify (`bad_signature`), a note or checkpoint
   * that breaks its format (`malformed_note`, `malformed_checkpoint`), an origin other than `origin`
   * (default: that of the latest stored checkpoint; `malformed_checkpoint`), more leaves than the log
   * holds (`invalid_option`), or a root that is not the log's root at that size, rebuilt from the
   * records (`root_mismatch`). A stored checkpoint is therefore always one a later one can extend.
   */
  saveCheckpoint(note: string, options: SaveCheckpointOptions): Promise<StoredCheckpoint>;
  /** The stored checkpoint of the largest tree (of several, the last stored), or null. */
  latestCheckpoint(): Promise<StoredCheckpoint | null>;
  /** Every stored checkpoint, in the order stored. */
  checkpoints(): Promise<StoredCheckpoint[]>;
  /**
   * Sequences, signs and stores a checkpoint of the whole log, checking only the chains of the
   * records sequenced since the latest stored checkpoint, so that its cost is that of the new records:
   * what an agent's automatic checkpoints do. It never signs a fork of a checkpoint it signed: the
   * first call of a process (or one after another process stored a newer checkpoint) rebuilds the
   * tree from the records, which must give the latest stored checkpoint's root, and checks the stored
   * tree against them (O(n)); a later call checks, in O(log n) stored subtrees, that the stored tree's
   * consistency proof takes the checkpoint it signed last to the new root, and that the new stored
   * leaves are the new records' digests. `signCheckpoint` checks every chain. Throws `audit_invalid`
   * (naming the stored checkpoint's size) when a new record's chain does not hold or the log would
   * fork; nothing is signed then.
   */
  checkpoint(options: { key: string; origin: string }): Promise<StoredCheckpoint>;
}

/**
 * Makes a store's {@link LogTables} one {@link StoreEvidenceLog}. Its `size` and `leafHashes` are
 * read from the records (their digests, by leaf index), and its `storedNodes` are the stored
 * subtrees, so that `verifyCheckpoint` recomputes the tree from the records and checks the stored
 * one against it rather than trusting it.
 *
 * @example
 * const log = storeEvidenceLog(sqliteLogTables(database));
 * const note = await signCheckpoint(log, { key, origin });
 */
export function storeEvidenceLog(tables: LogTables): StoreEvidenceLog {
  const merkle = async (): Promise<MerkleLog> => MerkleLog.open(tables.nodes, await tables.sequence());
  // The head up to which this process checked the stored tree against the records, then signed it.
  let checked: SignedHead | null = null;
  const self: StoreEvidenceLog = {
    size: () => tables.leafCount(),
    leafHashes: async (start, end) => leafHashesOf(tables, start, end),
    verifyChains: async () => [
      ...(await verifyAuditPages(() => tables.trailPages(), { runsInSeqOrder: tables.runsInSeqOrder === true })),
      ...(await rowProblems(tables)),
    ],
    rowProblems: async () => rowProblems(tables),
    ...(tables.storedRunIds === undefined
      ? {}
      : { storedRunIds: async (after: string | null, limit: number) => tables.storedRunIds!(after, limit) }),
    storedNodes: tables.nodes,
    root: async (size) => (await merkle()).root(size),
    sequence: async () => tables.sequence(),
    inclusionProof: async (leafIndex, treeSize) => (await merkle()).inclusionProof(leafIndex, treeSize),
    consistencyProof: async (m, n) => (await merkle()).consistencyProof(m, n),
    leafIndexOf: async (runId, seq) => {
      await tables.sequence();
      return tables.leafIndexOf(runId, seq);
    },
    saveCheckpoint: async (note, options) => {
      const latest = await tables.latestCheckpointRow();
      const origin = latest === null ? undefined : parseCheckpoint(splitNote(latest.note).text).origin;
      await checkedCheckpoint(self, note, options, { held: await tables.sequence(), origin });
      return saveCheckpoint(tables, note);
    },
    latestCheckpoint: async () => publicOf(await tables.latestCheckpointRow()),
    checkpoints: async () => (await tables.checkpointRows()).map((row) => publicOf(row)!),
    checkpoint: async ({ key, origin }) => {
      const log = await merkle();
      const latestRow = await tables.latestCheckpointRow();
      let signed: SignedHead | null = latestRow === null ? null : parseCheckpoint(splitNote(latestRow.note).text);
      // A checkpoint this process signed or checked that the table no longer holds still binds it.
      if (checked !== null && (signed === null || signed.size < checked.size)) signed = checked;
      const from = signed?.size ?? 0;
      const root =
        checked !== null && signed !== null && checked.size === signed.size && sameHash(checked.root, signed.root)
          ? await storedRootExtending(log, tables.nodes, signed, await leafHashesOf(tables, from, log.size))
          : await recordsRootExtending(self, signed, log.size);
      await checkNewChains(tables, from, log.size);
      const text = formatCheckpoint({ origin, size: log.size, root, extensions: [] });
      const stored = await saveCheckpoint(tables, signNote(text, key));
      checked = { size: log.size, root };
      return stored;
    },
  };
  return self;
}

async function rowProblems(tables: LogTables): Promise<AuditProblem[]> {
  return (await tables.digestMismatches()).map(({ run, seq }) => ({
    run,
    seq,
    problem: "digest_mismatch",
    message:
      `Run ${JSON.stringify(run)}: the digest column of record ${seq} is not the digest in its record's text: ` +
      "the row was changed outside leash.",
  }));
}

/** The leaves [start, end) from the records; a missing leaf (a sequenced record deleted) throws. */
async function leafHashesOf(tables: LogTables, start: number, end: number): Promise<Hash[]> {
  const leaves = await tables.recordLeaves(start, end);
  const hashes: Hash[] = [];
  for (const [offset, leaf] of leaves.entries()) {
    if (leaf.leafIndex !== start + offset) break;
    hashes.push(leaf.hash);
  }
  if (hashes.length !== end - start) {
    const missing = start + hashes.length;
    throw new LeashError("audit_corrupt", `The log has no record at leaf ${missing}: a sequenced record was removed.`, {
      details: { missingLeaf: missing },
    });
  }
  return hashes;
}

/** Stores a note already checked to be a checkpoint of this log (or signed by this log itself, just now). */
async function saveCheckpoint(tables: LogTables, note: string): Promise<StoredCheckpoint> {
  const { text } = splitNote(note);
  const { size } = parseCheckpoint(text);
  for (const row of await tables.checkpointsAt(size)) {
    if (splitNote(row.note).text !== text) continue;
    const merged = mergeSignatures(row.note, note, text.length);
    if (merged !== row.note) await tables.updateCheckpoint(row.id, merged);
    return { treeSize: row.treeSize, note: merged, createdAt: row.createdAt };
  }
  return publicOf(await tables.insertCheckpoint(size, note))!;
}

/** The stored note with the signature lines of `added` it lacks appended, in their order. */
function mergeSignatures(stored: string, added: string, textLength: number): string {
  const lines = (note: string): string[] => note.slice(textLength + 1, -1).split("\n");
  const have = lines(stored);
  const extra = lines(added).filter((line) => !have.includes(line));
  return extra.length === 0 ? stored : `${stored}${extra.join("\n")}\n`;
}

function publicOf(row: StoredCheckpoint | null): StoredCheckpoint | null {
  return row === null ? null : { treeSize: row.treeSize, note: row.note, createdAt: row.createdAt };
}
