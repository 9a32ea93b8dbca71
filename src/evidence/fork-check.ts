import { LeashError } from "../errors/index.js";
import type { Checkpoint } from "./checkpoint-text.js";
import type { EvidenceLog } from "./evidence-log.js";
import { sameHash, verifyConsistency, type Hash } from "./merkle.js";
import type { MerkleLog } from "./merkle-log.js";
import type { NodeStore } from "./node-store.js";
import { recomputeTree } from "./recompute-tree.js";

/** How many stored leaves {@link storedRootExtending} reads at a time. */
const CHUNK = 1000;

/** The tree head a log signed before (its size and root), which any new checkpoint must extend. */
export type SignedHead = Pick<Checkpoint, "size" | "root">;

/**
 * The full check before a log signs (C2SP tlog-checkpoint: a log must never sign a checkpoint that
 * is not consistent with one it signed): the tree is rebuilt from the records (never from stored
 * subtrees); its first `signed.size` leaves must give `signed.root`, the log must not have shrunk, and
 * the stored subtrees, when the log keeps them, must be the records' own. Returns the records' root of
 * all `size` leaves, the one to sign. Throws `audit_invalid` naming the signed checkpoint's size.
 * O(n) reads of leaves.
 */
export async function recordsRootExtending(log: EvidenceLog, signed: SignedHead | null, size: number): Promise<Hash> {
  const at = signed?.size ?? 0;
  if (size < at) throw shrunk(at, size);
  const { root, headRoot, problem } = await recomputeTree(log, at, size, true);
  if (signed !== null && (root === null || !sameHash(root, signed.root))) throw forked(at);
  if (problem !== null || headRoot === null) {
    throw new LeashError(
      "audit_invalid",
      `The log's stored tree does not match its records (${problem ?? "a leaf is missing"}); nothing was signed.`,
      { details: { treeSize: at } },
    );
  }
  return headRoot;
}

/**
 * The cheap check of an automatic checkpoint, once this process has checked the stored tree against
 * the records up to `signed` (by {@link recordsRootExtending}) and signed or seen `signed`: the stored
 * tree's consistency proof from `signed.size` to its size must prove that its root extends
 * `signed.root` (O(log n) stored subtrees), and its stored leaves after `signed.size` must be the
 * records' leaves (O(new records)). Returns the stored tree's root. Throws `audit_invalid`.
 */
export async function storedRootExtending(
  merkle: MerkleLog,
  nodes: NodeStore,
  signed: SignedHead,
  newLeaves: readonly Hash[],
): Promise<Hash> {
  if (merkle.size < signed.size) throw shrunk(signed.size, merkle.size);
  const root = await merkle.root();
  const proof = await merkle.consistencyProof(signed.size, merkle.size);
  if (!verifyConsistency(signed.size, merkle.size, signed.root, root, proof)) throw forked(signed.size);
  for (let from = 0; from < newLeaves.length; from += CHUNK) {
    const ids = newLeaves
      .slice(from, from + CHUNK)
      .map((_, offset) => ({ level: 0, index: signed.size + from + offset }));
    const stored = await nodes.readNodes(ids);
    const offset = ids.findIndex((_, position) => !sameHash(stored[position]!, newLeaves[from + position]!)) + from;
    if (offset >= from) {
      throw new LeashError(
        "audit_invalid",
        `The log's stored leaf ${signed.size + offset} is not its record's digest: the stored tree was changed; nothing was signed.`,
        { details: { treeSize: signed.size, leaf: signed.size + offset } },
      );
    }
  }
  return root;
}

function shrunk(at: number, size: number): LeashError {
  return new LeashError(
    "audit_invalid",
    `The log holds ${size} records, fewer than the ${at} of the checkpoint it signed: records were removed; nothing was signed.`,
    { details: { treeSize: at, logSize: size } },
  );
}

function forked(at: number): LeashError {
  return new LeashError(
    "audit_invalid",
    `The log's records no longer give the root of the checkpoint of ${at} records it signed: a record was ` +
      "changed, removed or reordered since, and a new checkpoint would fork the log; nothing was signed.",
    { details: { treeSize: at } },
  );
}
