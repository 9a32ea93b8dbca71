import { hash } from "node:crypto";

/** The size in bytes of every hash of the tree (SHA-256). */
export const HASH_SIZE = 32;

/** A SHA-256 hash of the tree: a leaf, a node or a root (32 bytes). */
export type Hash = Uint8Array;

/** A complete subtree of 2^level leaves, the `index`-th of its level: leaves index·2^level to (index+1)·2^level. */
export interface NodeId {
  level: number;
  index: number;
}

/** The root of the empty tree: SHA-256 of nothing (RFC 6962 §2.1). */
export const EMPTY_ROOT: Hash = hash("sha256", new Uint8Array(0), "buffer");

// One scratch buffer per prefix byte, so that a node hash costs one SHA-256 and no allocation but its result.
const nodeInput = new Uint8Array(1 + 2 * HASH_SIZE);
nodeInput[0] = 0x01;

/**
 * The hash of a leaf: SHA-256(0x00 ‖ data). The 0x00 prefix keeps a leaf from ever hashing like a node
 * (RFC 6962 §2.1: second-preimage resistance between leaves and nodes). Bytes, not canonical JSON
 * with a domain tag as leash's other digests: RFC 6962 fixes them, so that other tools can check the log.
 *
 * @example
 * const leaf = leafHash(Buffer.from(record.digest, "hex"));
 */
export function leafHash(data: Uint8Array): Hash {
  const input = new Uint8Array(1 + data.length);
  input.set(data, 1);
  return hash("sha256", input, "buffer");
}

/**
 * The hash of an interior node: SHA-256(0x01 ‖ left ‖ right).
 *
 * @example
 * const parent = nodeHash(leftChild, rightChild);
 */
export function nodeHash(left: Hash, right: Hash): Hash {
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_SIZE);
  return hash("sha256", nodeInput, "buffer");
}

/**
 * The largest power of two strictly smaller than `n` (n ≥ 2): where RFC 6962 splits a tree of n leaves.
 * Plain arithmetic rather than bit operations, which would wrap at 2^31 leaves.
 */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees that make up the leaves [start, end), largest first. When `start` is a multiple
 * of the largest of them (as every range of an RFC 6962 tree is: a complete subtree, or a right edge),
 * folding their hashes from the right gives the range's hash ({@link foldRange}).
 */
export function rangeNodes(start: number, end: number): NodeId[] {
  const nodes: NodeId[] = [];
  let position = start;
  while (position < end) {
    let size = 1;
    let level = 0;
    while (position % (size * 2) === 0 && position + size * 2 <= end) {
      size *= 2;
      level++;
    }
    nodes.push({ level, index: position / size });
    position += size;
  }
  return nodes;
}

/** The hash of a range from the hashes of its {@link rangeNodes}: the right edge is folded in first. */
export function foldRange(hashes: readonly Hash[]): Hash {
  if (hashes.length === 0) return EMPTY_ROOT;
  let result = hashes[hashes.length - 1]!;
  for (let index = hashes.length - 2; index >= 0; index--) result = nodeHash(hashes[index]!, result);
  return result;
}

/** A range of leaves [start, end) whose hash is one element of a proof. */
export type LeafRange = readonly [start: number, end: number];

/**
 * The ranges whose hashes form the inclusion proof of leaf `index` in the tree of `size` leaves, in the
 * order of RFC 6962 §2.1.1's PATH (the sibling nearest the leaf first).
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  const ranges: LeafRange[] = [];
  let start = 0;
  let end = size;
  let offset = index;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (offset < k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      offset -= k;
      start += k;
    }
  }
  return ranges.reverse();
}

/**
 * The ranges whose hashes form the consistency proof from the tree of `oldSize` leaves to the tree of
 * `newSize`, in the order of RFC 6962 §2.1.2's PROOF. Empty when oldSize is 0 or equals newSize.
 */
export function consistencyRanges(oldSize: number, newSize: number): LeafRange[] {
  const ranges: LeafRange[] = [];
  if (oldSize === 0 || oldSize === newSize) return ranges;
  let start = 0;
  let end = newSize;
  let remaining = oldSize;
  let whole = true;
  for (;;) {
    const size = end - start;
    if (remaining === size) {
      if (!whole) ranges.push([start, end]);
      break;
    }
    const k = splitPoint(size);
    if (remaining <= k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      remaining -= k;
      start += k;
      whole = false;
    }
  }
  return ranges.reverse();
}

/** Whether two hashes are equal (a hash is public: no constant-time compare is needed). */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

function isSize(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isHash(value: unknown): value is Hash {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}

function isHashList(value: unknown): value is Hash[] {
  return Array.isArray(value) && value.every(isHash);
}

/**
 * Checks an inclusion proof: that `leaf` is leaf `index` of the tree of `size` leaves whose root is
 * `root`, with RFC 9162 §2.1.3.2's algorithm. It never throws: anything malformed is `false`.
 *
 * @example
 * const ok = verifyInclusion(leafHash(digest), 41, 1000, proof, root);
 */
export function verifyInclusion(leaf: Hash, index: number, size: number, proof: readonly Hash[], root: Hash): boolean {
  if (!isHash(leaf) || !isSize(index) || !isSize(size) || !isHashList(proof) || !isHash(root)) return false;
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let result = leaf;
  for (const sibling of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      result = nodeHash(sibling, result);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      result = nodeHash(result, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(result, root);
}

/**
 * Checks a consistency proof: that the tree of `oldSize` leaves with root `oldRoot` is a prefix of the
 * tree of `newSize` leaves with root `newRoot`, with RFC 9162 §2.1.4.2's algorithm. Equal sizes need
 * an empty proof and equal roots; the empty tree is a prefix of every tree. It never throws.
 *
 * @example
 * const ok = verifyConsistency(1000, 2000, oldRoot, newRoot, proof);
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Hash,
  newRoot: Hash,
  proof: readonly Hash[],
): boolean {
  if (!isSize(oldSize) || !isSize(newSize) || !isHash(oldRoot) || !isHash(newRoot) || !isHashList(proof)) return false;
  if (oldSize > newSize) return false;
  if (oldSize === newSize) return proof.length === 0 && sameHash(oldRoot, newRoot);
  if (oldSize === 0) return proof.length === 0 && sameHash(oldRoot, EMPTY_ROOT);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let oldResult = path[0]!;
  let newResult = path[0]!;
  for (let position = 1; position < path.length; position++) {
    const hashed = path[position]!;
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      oldResult = nodeHash(hashed, oldResult);
      newResult = nodeHash(hashed, newResult);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      newResult = nodeHash(newResult, hashed);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sameHash(oldResult, oldRoot) && sameHash(newResult, newRoot) && sn === 0;
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}
