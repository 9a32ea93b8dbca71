import { LeashError } from "../errors/index.js";
import { HASH_SIZE, type Hash, type NodeId } from "./merkle.js";

/** A value, or a promise of it: a port that a synchronous store (memory, SQLite) answers at once. */
export type MaybePromise<T> = T | Promise<T>;

/** A complete subtree's hash, as a {@link NodeStore} keeps it. */
export interface StoredNode extends NodeId {
  hash: Hash;
}

/**
 * Where a Merkle log keeps the hashes of its complete subtrees (level 0: the leaves; level L: a subtree
 * of 2^L leaves). Nodes are only ever added, each once, in the order of their leaves: a complete
 * subtree never changes, which is what lets a root or a proof read O(log n) of them instead of the log.
 * In memory here ({@link MemoryNodeStore}); a store keeps them in a table, and may answer level 0 from
 * its records.
 */
export interface NodeStore {
  /** The hashes of the nodes asked for, in the order asked; every one was written before. */
  readNodes(nodes: readonly NodeId[]): MaybePromise<Hash[]>;
  /** Keeps newly completed subtrees (level 0 included), in the order they were completed. */
  writeNodes(nodes: readonly StoredNode[]): MaybePromise<void>;
}

/**
 * The leaves of a log, read by index range: a store's records' digests, a JSONL trail's lines. A
 * {@link MerkleLog} catches up from one ({@link MerkleLog.appendFrom}).
 */
export interface LeafSource {
  /** How many leaves the log holds. */
  size(): MaybePromise<number>;
  /** The leaf hashes of leaves [start, end), end ≤ size. */
  leafHashes(start: number, end: number): MaybePromise<Hash[]>;
}

/** Neighbouring nodes of one level, `first` to `last` (both included), as a table reads them in one query. */
export interface NodeRange {
  level: number;
  first: number;
  last: number;
}

/**
 * The nodes asked for as ranges of neighbours, level by level: what a {@link NodeStore} over a table
 * reads with one query a range instead of one a node. Every node asked for is in one range; a range
 * holds no node that was not asked for.
 *
 * @example
 * for (const { level, first, last } of nodeRanges(nodes)) readLevel(level, first, last);
 */
export function nodeRanges(nodes: readonly NodeId[]): NodeRange[] {
  const byLevel = new Map<number, number[]>();
  for (const { level, index } of nodes) {
    const indexes = byLevel.get(level);
    if (indexes === undefined) byLevel.set(level, [index]);
    else indexes.push(index);
  }
  const ranges: NodeRange[] = [];
  for (const [level, indexes] of byLevel) {
    indexes.sort((left, right) => left - right);
    let first = indexes[0]!;
    let last = first;
    for (const index of indexes) {
      if (index <= last + 1) last = Math.max(last, index);
      else {
        ranges.push({ level, first, last });
        first = last = index;
      }
    }
    ranges.push({ level, first, last });
  }
  return ranges;
}

interface Level {
  bytes: Uint8Array;
  count: number;
}

/**
 * A {@link NodeStore} in memory: one growing byte array per level, 32 bytes a node, so a log of n
 * leaves takes about 64·n bytes and no object per node.
 *
 * @example
 * const log = new MerkleLog(new MemoryNodeStore());
 */
export class MemoryNodeStore implements NodeStore {
  readonly #levels: Level[] = [];

  /** How many nodes the store holds at a level. */
  count(level: number): number {
    return this.#levels[level]?.count ?? 0;
  }

  readNodes(nodes: readonly NodeId[]): Hash[] {
    return nodes.map(({ level, index }) => {
      const stored = this.#levels[level];
      if (stored === undefined || !Number.isSafeInteger(index) || index < 0 || index >= stored.count) {
        throw new LeashError("invalid_option", `The node store holds no node ${index} at level ${level}.`, {
          details: { level, index },
        });
      }
      // A view, not a copy: a stored node is never overwritten, and a grown array leaves old views intact.
      return stored.bytes.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE);
    });
  }

  writeNodes(nodes: readonly StoredNode[]): void {
    for (const { level, index, hash } of nodes) {
      let stored = this.#levels[level];
      if (stored === undefined) {
        for (let next = this.#levels.length; next <= level; next++) {
          this.#levels.push({ bytes: new Uint8Array(HASH_SIZE * 16), count: 0 });
        }
        stored = this.#levels[level]!;
      }
      if (index !== stored.count) {
        throw new LeashError(
          "invalid_option",
          `Nodes are added in order: expected node ${stored.count} at level ${level}, but got ${index}.`,
          { details: { level, index } },
        );
      }
      if ((index + 1) * HASH_SIZE > stored.bytes.length) {
        const grown = new Uint8Array(stored.bytes.length * 2);
        grown.set(stored.bytes);
        stored.bytes = grown;
      }
      stored.bytes.set(hash, index * HASH_SIZE);
      stored.count++;
    }
  }
}
