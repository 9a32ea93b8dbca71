/**
 * The shared contract of the NodeStore port: every implementation (in memory now; a store's table
 * later) runs it with its own factory. A MerkleLog over it must give the checker's roots and proofs,
 * reopen from it, and find in it exactly the complete subtrees it wrote.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { MerkleLog, type NodeStore } from "../../src/evidence/index.js";
import { specLeaf, specPath, specProof, specRoot } from "./spec-checker.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

function leavesOf(count: number): Buffer[] {
  return Array.from({ length: count }, (_, index) => specLeaf(createHash("sha256").update(`node ${index}`).digest()));
}

/** Runs the contract against stores made by `newStore` (each call: a new, empty store). */
export function nodeStoreContract(name: string, newStore: () => NodeStore | Promise<NodeStore>): void {
  test(`${name}: a log appended a leaf at a time and in batches gives RFC 6962's roots and proofs`, async () => {
    const leaves = leavesOf(130);
    const log = new MerkleLog(await newStore());
    for (let index = 0; index < 37; index++) await log.append([leaves[index]!]);
    await log.append(leaves.slice(37, 100));
    await log.append([]);
    await log.append(leaves.slice(100));
    for (const size of [1, 2, 3, 37, 64, 99, 100, 129, 130]) {
      assert.equal(hex(await log.root(size)), hex(specRoot(leaves.slice(0, size))), `root(${size})`);
      const index = (size * 7 + 3) % size;
      assert.deepEqual(
        (await log.inclusionProof(index, size)).map(hex),
        specPath(index, leaves.slice(0, size)).map(hex),
      );
      const old = Math.max(1, size >> 1);
      assert.deepEqual(
        (await log.consistencyProof(old, size)).map(hex),
        specProof(old, leaves.slice(0, size)).map(hex),
      );
    }
  });

  test(`${name}: every complete subtree is stored once and read back as written`, async () => {
    const leaves = leavesOf(100);
    const store = await newStore();
    const log = new MerkleLog(store);
    await log.append(leaves);
    for (let level = 0; 2 ** level <= 100; level++) {
      const count = Math.floor(100 / 2 ** level);
      const ids = Array.from({ length: count }, (_, index) => ({ level, index }));
      const hashes = await store.readNodes(ids);
      assert.equal(hashes.length, count);
      hashes.forEach((hash, index) => {
        const span = 2 ** level;
        assert.equal(hex(hash), hex(specRoot(leaves.slice(index * span, (index + 1) * span))), `${level}/${index}`);
      });
    }
  });

  test(`${name}: a log reopened at its size from the store continues where it stopped`, async () => {
    const leaves = leavesOf(77);
    const store = await newStore();
    await new MerkleLog(store).append(leaves.slice(0, 45));
    const reopened = await MerkleLog.open(store, 45);
    await reopened.append(leaves.slice(45));
    assert.equal(reopened.size, 77);
    assert.equal(hex(await reopened.root()), hex(specRoot(leaves)));
    assert.equal(hex(await reopened.root(45)), hex(specRoot(leaves.slice(0, 45))));
  });
}
