import type { AuditRecord } from "../audit/audit-record.js";
import { readAudit } from "../audit/read-audit.js";
import { verifyAudit, type AuditProblem } from "../audit/verify-audit.js";
import { LeashError } from "../errors/index.js";
import { leafHash, type Hash } from "./merkle.js";
import { MerkleLog } from "./merkle-log.js";
import type { LeafSource, MaybePromise, NodeStore } from "./node-store.js";

/**
 * A log that checkpoints can be signed for and checked against: its leaves (one per audit record, in
 * the order it was sequenced, which never changes) and the check of its records' hash chains. A JSONL
 * trail is one ({@link jsonlEvidenceLog}); a store implements it over its tables.
 */
export interface EvidenceLog extends LeafSource {
  /** `verifyAudit`'s problems of the log's chains: `[]` when every chain holds. */
  verifyChains(): MaybePromise<AuditProblem[]>;
  /**
   * The root of the tree of the first `size` leaves from stored subtrees, in O(log n) reads. Without
   * it the root is computed from the leaves, which reads them all.
   */
  root?(size: number): Promise<Hash>;
  /**
   * The stored complete subtrees, when the log keeps them: `verifyCheckpoint` recomputes the tree
   * from the leaves and checks every stored node it covers against it, so a changed stored node is
   * found rather than trusted.
   */
  storedNodes?: NodeStore;
}

/**
 * The leaf hash of an audit record: SHA-256(0x00 ‖ its 32-byte digest). The stored digest, not one
 * recomputed: the chain check finds a record whose content no longer matches it.
 *
 * @example
 * const leaf = recordLeafHash(record.digest);
 */
export function recordLeafHash(digest: string): Hash {
  return leafHash(Buffer.from(typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest) ? digest : "", "hex"));
}

/**
 * An {@link EvidenceLog} over records held in memory (a `MemoryAuditSink`'s, a trail already read):
 * the leaves are their digests in the order given.
 *
 * @example
 * const log = recordsEvidenceLog(sink.records);
 */
export function recordsEvidenceLog(records: readonly AuditRecord[]): EvidenceLog {
  const leaves: Hash[] = records.map((record) => recordLeafHash(record.digest));
  return {
    size: () => leaves.length,
    leafHashes: (start, end) => leaves.slice(start, end),
    verifyChains: () => verifyAudit(records),
  };
}

/**
 * An {@link EvidenceLog} over a JSONL trail, read once: its leaves are its records' digests in file
 * order. Throws what `readAudit` throws (`audit_not_found`, `audit_torn`, `audit_corrupt`).
 *
 * @example
 * const log = jsonlEvidenceLog("audit.jsonl");
 */
export function jsonlEvidenceLog(path: string): EvidenceLog {
  return recordsEvidenceLog(readAudit(path));
}

// A node store that keeps nothing: computing one root from the leaves needs only the right edge.
const discard: NodeStore = {
  readNodes: () => {
    throw new LeashError("internal_error", "A root computed from the leaves reads no stored node.");
  },
  writeNodes: () => undefined,
};

/** How many leaves {@link rootOfLog} reads at a time. */
const CHUNK = 4096;

/**
 * The root of the tree of the first `size` leaves of a log: from its stored subtrees when it has them,
 * else from its leaves, keeping only the right edge in memory.
 */
export async function rootOfLog(log: EvidenceLog, size: number): Promise<Hash> {
  if (log.root !== undefined) return log.root(size);
  const merkle = new MerkleLog(discard);
  while (merkle.size < size) {
    const leaves = await log.leafHashes(merkle.size, Math.min(size, merkle.size + CHUNK));
    if (leaves.length === 0) throw new LeashError("store_failed", `The log gave no leaf at ${merkle.size}.`);
    await merkle.append(leaves);
  }
  return merkle.root();
}
