import { LeashError } from "../errors/index.js";
import {
  consistencyRanges,
  EMPTY_ROOT,
  foldRange,
  HASH_SIZE,
  inclusionRanges,
  nodeHash,
  rangeNodes,
  type Hash,
  type LeafRange,
  type NodeId,
} from "./merkle.js";
import type { LeafSource, MaybePromise, NodeStore, StoredNode } from "./node-store.js";

/** How many leaves {@link MerkleLog.appendFrom} reads from a source at a time. */
const CATCH_UP_CHUNK = 4096;

/**
 * An append-only RFC 6962 Merkle log over a {@link NodeStore} of complete subtrees. It keeps in memory
 * only the right edge (the O(log n) complete subtrees that make up the whole tree), so appending costs
 * about two hashes a leaf, and the root of any size, an inclusion proof or a consistency proof read
 * O(log n) stored nodes in one batch.
 *
 * @example
 * const log = new MerkleLog(new MemoryNodeStore());
 * log.append(records.map((record) => leafHash(Buffer.from(record.digest, "hex"))));
 * const root = await log.root();
 * const proof = await log.inclusionProof(41);
 */
export class MerkleLog {
  readonly #nodes: NodeStore;
  #size = 0;
  // The pending complete subtree at each level: edge[L] is set exactly when bit L of the size is.
  readonly #edge: (Hash | undefined)[] = [];

  /** An empty log over `nodes` (which must hold nothing yet); {@link MerkleLog.open} reopens one. */
  constructor(nodes: NodeStore) {
    this.#nodes = nodes;
  }

  /**
   * Reopens a log of `size` leaves whose nodes `nodes` holds, reading only its right edge.
   *
   * @example
   * const log = await MerkleLog.open(store.nodes, await store.size());
   */
  static async open(nodes: NodeStore, size: number): Promise<MerkleLog> {
    checkSize(size, "size");
    const edge = rangeNodes(0, size);
    return MerkleLog.resume(nodes, size, edge.length === 0 ? [] : await nodes.readNodes(edge));
  }

  /**
   * Reopens a log of `size` leaves from its right edge read already (the hashes of
   * `rangeNodes(0, size)`, in that order), without reading: what a synchronous store does inside a
   * transaction, where it cannot wait on a promise.
   *
   * @example
   * const log = MerkleLog.resume(nodes, size, nodes.readNodes(rangeNodes(0, size)));
   */
  static resume(nodes: NodeStore, size: number, edgeHashes: readonly Hash[]): MerkleLog {
    checkSize(size, "size");
    const edge = rangeNodes(0, size);
    if (edgeHashes.length !== edge.length) {
      throw new LeashError("store_failed", `The right edge of a log of ${size} leaves is ${edge.length} nodes, not ${edgeHashes.length}.`);
    }
    const log = new MerkleLog(nodes);
    edge.forEach(({ level }, position) => {
      log.#edge[level] = edgeHashes[position];
    });
    log.#size = size;
    return log;
  }

  /** How many leaves the log holds. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends leaf hashes in order and hands the nodes they complete to the store in one write; returns
   * what that write returns (a promise for an asynchronous store). When that write fails the log in
   * memory is ahead of the store: reopen it with {@link MerkleLog.open}.
   */
  append(leafHashes: readonly Hash[]): MaybePromise<void> {
    const written: StoredNode[] = [];
    for (const leaf of leafHashes) {
      if (!(leaf instanceof Uint8Array) || leaf.length !== HASH_SIZE) {
        throw new LeashError("invalid_option", `Expected every leaf hash to be ${HASH_SIZE} bytes.`);
      }
      let index = this.#size;
      let level = 0;
      let hash: Hash = leaf;
      written.push({ level, index, hash });
      // Each set low bit of the old size is a pending subtree that this leaf completes, level by level.
      while (index % 2 === 1) {
        hash = nodeHash(this.#edge[level]!, hash);
        this.#edge[level] = undefined;
        level++;
        index = (index - 1) / 2;
        written.push({ level, index, hash });
      }
      this.#edge[level] = hash;
      this.#size++;
    }
    return written.length === 0 ? undefined : this.#nodes.writeNodes(written);
  }

  /** Appends the leaves of `source` that this log does not hold yet, a chunk at a time. */
  async appendFrom(source: LeafSource): Promise<void> {
    const total = await source.size();
    while (this.#size < total) {
      const end = Math.min(total, this.#size + CATCH_UP_CHUNK);
      await this.append(await source.leafHashes(this.#size, end));
    }
  }

  /** The hash of the complete subtree of 2^level leaves at `index` of its level. */
  async hashAt(level: number, index: number): Promise<Hash> {
    checkSize(level, "level");
    checkSize(index, "index");
    if ((index + 1) * 2 ** level > this.#size) {
      throw new LeashError(
        "invalid_option",
        `The log of ${this.#size} leaves has no complete node ${index} at level ${level}.`,
      );
    }
    const [hash] = await this.#nodes.readNodes([{ level, index }]);
    return hash!;
  }

  /** The root of the tree of the first `size` leaves (default: all of them). */
  async root(size = this.#size): Promise<Hash> {
    this.#checkTreeSize(size, "size");
    if (size === this.#size) return foldRange(this.#edgeHashes());
    const [root] = await this.#hashRanges([[0, size]]);
    return root ?? EMPTY_ROOT;
  }

  /** The inclusion proof (RFC 6962 PATH) of leaf `index` in the tree of the first `size` leaves. */
  async inclusionProof(index: number, size = this.#size): Promise<Hash[]> {
    this.#checkTreeSize(size, "size");
    checkSize(index, "index");
    if (index >= size) {
      throw new LeashError("invalid_option", `Expected \`index\` to be below the tree size ${size}, but got ${index}.`);
    }
    return this.#hashRanges(inclusionRanges(index, size));
  }

  /** The consistency proof (RFC 6962 PROOF) from the tree of `oldSize` leaves to that of `newSize`. */
  async consistencyProof(oldSize: number, newSize = this.#size): Promise<Hash[]> {
    this.#checkTreeSize(newSize, "newSize");
    checkSize(oldSize, "oldSize");
    if (oldSize > newSize) {
      throw new LeashError(
        "invalid_option",
        `Expected \`oldSize\` (${oldSize}) to be at most \`newSize\` (${newSize}).`,
      );
    }
    return this.#hashRanges(consistencyRanges(oldSize, newSize));
  }

  #edgeHashes(): Hash[] {
    const hashes: Hash[] = [];
    for (let level = this.#edge.length - 1; level >= 0; level--) {
      const hash = this.#edge[level];
      if (hash !== undefined) hashes.push(hash);
    }
    return hashes;
  }

  /** The hashes of ranges, reading every complete subtree they need in one batch. */
  async #hashRanges(ranges: readonly LeafRange[]): Promise<Hash[]> {
    const plans = ranges.map(([start, end]) => rangeNodes(start, end));
    const wanted: NodeId[] = [];
    const positions = new Map<string, number>();
    for (const plan of plans) {
      for (const node of plan) {
        const key = `${node.level}/${node.index}`;
        if (!positions.has(key)) {
          positions.set(key, wanted.length);
          wanted.push(node);
        }
      }
    }
    const read = wanted.length === 0 ? [] : await this.#nodes.readNodes(wanted);
    if (read.length !== wanted.length) {
      throw new LeashError("store_failed", `The node store answered ${read.length} nodes for ${wanted.length}.`);
    }
    return plans.map((plan) => foldRange(plan.map((node) => read[positions.get(`${node.level}/${node.index}`)!]!)));
  }

  #checkTreeSize(size: number, name: string): void {
    checkSize(size, name);
    if (size > this.#size) {
      throw new LeashError(
        "invalid_option",
        `Expected \`${name}\` to be at most the log's size ${this.#size}, but got ${size}.`,
      );
    }
  }
}

function checkSize(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new LeashError(
      "invalid_option",
      `Expected \`${name}\` to be a non-negative integer, but got ${String(value)}.`,
    );
  }
}
