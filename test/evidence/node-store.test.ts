import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError } from "../../src/index.js";
import { MemoryNodeStore, type Hash, type NodeId, type NodeStore, type StoredNode } from "../../src/evidence/index.js";
import { nodeStoreContract } from "./node-store-contract.js";

/** A store that answers through promises and keeps nodes in a Map, as a database table would. */
class AsyncMapStore implements NodeStore {
  readonly #nodes = new Map<string, Hash>();
  async readNodes(nodes: readonly NodeId[]): Promise<Hash[]> {
    await new Promise((resolve) => setImmediate(resolve));
    return nodes.map(({ level, index }) => {
      const hash = this.#nodes.get(`${level}/${index}`);
      if (hash === undefined) throw new Error(`no node ${level}/${index}`);
      return hash;
    });
  }
  async writeNodes(nodes: readonly StoredNode[]): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (const { level, index, hash } of nodes) this.#nodes.set(`${level}/${index}`, Buffer.from(hash));
  }
}

nodeStoreContract("MemoryNodeStore", () => new MemoryNodeStore());
nodeStoreContract("a store that answers through promises", () => new AsyncMapStore());

test("the memory node store refuses a node out of order and a node it does not hold", () => {
  const store = new MemoryNodeStore();
  store.writeNodes([{ level: 0, index: 0, hash: new Uint8Array(32) }]);
  assert.throws(
    () => store.writeNodes([{ level: 0, index: 2, hash: new Uint8Array(32) }]),
    (error) => isLeashError(error, "invalid_option"),
  );
  for (const id of [
    { level: 0, index: 1 },
    { level: 1, index: 0 },
    { level: 0, index: -1 },
  ]) {
    assert.throws(
      () => store.readNodes([id]),
      (error) => isLeashError(error, "invalid_option"),
    );
  }
  assert.equal(store.count(0), 1);
  assert.equal(store.count(5), 0);
});
