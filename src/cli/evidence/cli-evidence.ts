import type { EvidenceSource } from "../../evidence/checkpoint.js";
import type { Hash } from "../../evidence/index.js";
import { readAudit } from "../../audit/read-audit.js";
import { MemoryNodeStore, MerkleLog, recordLeafHash, recordsEvidenceLog } from "../../evidence/index.js";
import { isLeashError } from "../../errors/leash-error.js";
import { CliError } from "../cli-error.js";

/** A run's last record, as a leaf of the log. */
interface RunLeaf {
  /** The run's last record's seq. */
  seq: number;
  /** Its position in the log, or `null` when the log has not sequenced it yet. */
  leafIndex: number | null;
}

/**
 * What the evidence commands need of a log, whatever holds it: a JSONL trail (read once, its tree
 * built in memory) or a store (its own sequenced tree). Each command is written against this only.
 */
export interface CliEvidence {
  /** What is checked, for messages: a path, or a store's label. */
  label: string;
  /**
   * What `signCheckpoint` and `verifyCheckpoint` are given: the log itself (a store, not its stored
   * subtrees), so that a check recomputes the root from the records rather than trusting what the
   * log's own tables say.
   */
  source: EvidenceSource;
  /** Sequences what is not in the tree yet (a store's new records); a JSONL trail has nothing to do. */
  sequence(): Promise<void>;
  /** How many leaves the tree holds. */
  size(): Promise<number>;
  /** The root of the tree of the first `size` leaves. */
  root(size: number): Promise<Hash>;
  /** The leaf hash at `index`. */
  leafHash(index: number): Promise<Hash>;
  /** The inclusion proof of leaf `index` in the tree of `size` leaves. */
  inclusionProof(index: number, size: number): Promise<Hash[]>;
  /** The consistency proof from the tree of `oldSize` leaves to the tree of `size` (for witnesses). */
  consistencyProof(oldSize: number, size: number): Promise<Hash[]>;
  /** The run's last record and its leaf, or `undefined` when the log holds no record of the run. */
  lastLeafOf(runId: string): Promise<RunLeaf | undefined>;
  /** The last checkpoint kept beside the log (a store), whose size witnesses are first asked from. */
  latestCheckpoint?(): Promise<string | undefined>;
  /**
   * Keeps a signed checkpoint beside the log (a store), once it is checked to be one of this log
   * under the log's verifier key; absent for a JSONL trail.
   */
  saveCheckpoint?(note: string, verifierKey: string): Promise<void>;
}

/**
 * A JSONL trail as a {@link CliEvidence}: its records read once, in file order, their leaves put in a
 * {@link MerkleLog} over a {@link MemoryNodeStore}. A trail that cannot be read is `trail_not_found`
 * or its reading's own error (`audit_torn`, `audit_corrupt`).
 *
 * @example
 * const evidence = await jsonlEvidence("audit.jsonl");
 * const proof = await evidence.inclusionProof(3, await evidence.size());
 */
export async function jsonlEvidence(path: string): Promise<CliEvidence> {
  let records;
  try {
    records = readAudit(path);
  } catch (error) {
    if (isLeashError(error, "audit_not_found")) throw new CliError("trail_not_found", `There is no trail at ${path}.`);
    throw error;
  }
  const leaves = records.map((record) => recordLeafHash(record.digest));
  const tree = new MerkleLog(new MemoryNodeStore());
  await tree.append(leaves);
  const last = new Map<string, RunLeaf>();
  records.forEach((record, index) => last.set(record.run, { seq: record.seq, leafIndex: index }));
  return {
    label: path,
    source: recordsEvidenceLog(records),
    sequence: () => Promise.resolve(),
    size: () => Promise.resolve(tree.size),
    root: (size) => tree.root(size),
    leafHash: (index) => Promise.resolve(leaves[index]!),
    inclusionProof: (index, size) => tree.inclusionProof(index, size),
    consistencyProof: (oldSize, size) => tree.consistencyProof(oldSize, size),
    lastLeafOf: (runId) => Promise.resolve(last.get(runId)),
  };
}
