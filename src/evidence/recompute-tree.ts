import { isLeashError } from "../errors/index.js";
import type { EvidenceLog } from "./evidence-log.js";
import { EMPTY_ROOT, sameHash, type Hash, type NodeId } from "./merkle.js";
import { MerkleLog } from "./merkle-log.js";
import type { NodeStore, StoredNode } from "./node-store.js";

/** How many leaves {@link recomputeTree} reads at a time. */
const CHUNK = 4096;

/** What {@link recomputeTree} found. */
interface RecomputedTree {
  /** The root of the first `treeSize` leaves, computed from the leaves; null when a leaf is missing. */
  root: Hash | null;
  /** Why the leaves or the stored tree do not hold, or null. */
  problem: string | null;
  /** The root of all `size` leaves from the leaves, when `headToo` was asked and they are all there; else null. */
  headRoot: Hash | null;
}

/**
 * Recomputes a log's tree from its leaves (never from stored subtrees): the root of its first
 * `treeSize` leaves, and, when the log keeps stored subtrees, a check of every one of them up to
 * `size` leaves against the recomputed nodes, so that a changed stored node or leaf is named. With
 * `headToo`, it reads all `size` leaves and gives their root too. Reads the leaves a chunk at a time
 * and keeps only the right edge in memory.
 */
export async function recomputeTree(
  log: EvidenceLog,
  treeSize: number,
  size: number,
  headToo = false,
): Promise<RecomputedTree> {
  const stored = log.storedNodes;
  let problem: string | null = null;
  const checker: NodeStore = {
    readNodes: () => [],
    writeNodes: async (nodes: readonly StoredNode[]) => {
      if (stored === undefined || problem !== null) return;
      problem = await compareStored(stored, nodes);
    },
  };
  const merkle = new MerkleLog(checker);
  let root: Hash | null = treeSize === 0 ? EMPTY_ROOT : null;
  const end = stored === undefined && !headToo ? treeSize : Math.max(treeSize, size);
  try {
    while (merkle.size < end) {
      const stop =
        merkle.size < treeSize ? Math.min(treeSize, merkle.size + CHUNK) : Math.min(end, merkle.size + CHUNK);
      await merkle.append(await log.leafHashes(merkle.size, stop));
      if (merkle.size === treeSize) root = await merkle.root();
    }
  } catch (error) {
    const missing = isLeashError(error, "audit_corrupt") ? error.details?.missingLeaf : undefined;
    if (typeof missing !== "number") throw error;
    return {
      root: merkle.size >= treeSize ? root : null,
      headRoot: null,
      problem: problem ?? `The log has no record at leaf ${missing}: a record sequenced into it was removed.`,
    };
  }
  return { root, problem, headRoot: headToo && merkle.size === size ? await merkle.root() : null };
}

async function compareStored(stored: NodeStore, nodes: readonly StoredNode[]): Promise<string | null> {
  const ids: NodeId[] = nodes.map(({ level, index }) => ({ level, index }));
  let hashes: Hash[];
  try {
    hashes = await stored.readNodes(ids);
  } catch {
    return "The log's stored tree lacks nodes that its records make: the stored tree was changed.";
  }
  for (const [position, node] of nodes.entries()) {
    const hash = hashes[position];
    if (hash === undefined || !sameHash(hash, node.hash)) {
      return (
        `The log's stored ${node.level === 0 ? "leaf" : "subtree"} at level ${node.level}, index ${node.index}, ` +
        "does not match its records: the stored tree was changed, so its roots and proofs cannot be trusted."
      );
    }
  }
  return null;
}
