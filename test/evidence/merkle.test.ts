import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isLeashError } from "../../src/index.js";
import {
  EMPTY_ROOT,
  MemoryNodeStore,
  MerkleLog,
  leafHash,
  verifyConsistency,
  verifyInclusion,
  type Hash,
  type NodeId,
  type NodeStore,
} from "../../src/evidence/index.js";
import { specLeaf, specPath, specProof, specRoot, specVerifyConsistency, specVerifyInclusion } from "./spec-checker.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const b64 = (text: string): Buffer => Buffer.from(text, "base64");

/** Leaves whose data is their index, hashed by the checker. */
function leavesOf(count: number): Buffer[] {
  return Array.from({ length: count }, (_, index) => specLeaf(createHash("sha256").update(`leaf ${index}`).digest()));
}

/** A node store that counts how many nodes it is asked for. */
class CountingStore implements NodeStore {
  readonly inner = new MemoryNodeStore();
  reads = 0;
  readNodes(nodes: readonly NodeId[]): Hash[] {
    this.reads += nodes.length;
    return this.inner.readNodes(nodes);
  }
  writeNodes(nodes: Parameters<NodeStore["writeNodes"]>[0]): void {
    this.inner.writeNodes(nodes);
  }
}

function logOf(leaves: readonly Uint8Array[], store: NodeStore = new MemoryNodeStore()): MerkleLog {
  const log = new MerkleLog(store);
  void log.append(leaves);
  return log;
}

// Each proof element flipped must make the proof fail, for leash's verifier and the checker's.
function assertTamperFails(proof: Hash[], check: (tampered: Hash[]) => boolean): void {
  proof.forEach((_, position) => {
    const tampered = proof.map((hash) => Buffer.from(hash));
    tampered[position]![0]! ^= 1;
    assert.equal(check(tampered), false, `element ${position} flipped`);
  });
}

test("the root of every size 0..300 is RFC 6962's MTH over the same leaves", async () => {
  const leaves = leavesOf(300);
  const log = logOf(leaves);
  assert.equal(hex(await log.root(0)), hex(EMPTY_ROOT));
  assert.equal(hex(EMPTY_ROOT), createHash("sha256").digest("hex"));
  for (let size = 1; size <= 300; size++) {
    assert.equal(hex(await log.root(size)), hex(specRoot(leaves.slice(0, size))), `size ${size}`);
  }
  assert.equal(hex(await log.root()), hex(specRoot(leaves)));
});

test("every inclusion proof of every size 1..300 verifies with RFC 9162's algorithm, and equals PATH up to 64", async () => {
  const leaves = leavesOf(300);
  const log = logOf(leaves);
  for (let size = 1; size <= 300; size++) {
    const root = specRoot(leaves.slice(0, size));
    for (let index = 0; index < size; index++) {
      const proof = await log.inclusionProof(index, size);
      assert.ok(specVerifyInclusion(index, size, leaves[index]!, proof, root), `checker: ${index} in ${size}`);
      assert.ok(verifyInclusion(leaves[index]!, index, size, proof, root), `leash: ${index} in ${size}`);
      if (size <= 64) {
        assert.deepEqual(proof.map(hex), specPath(index, leaves.slice(0, size)).map(hex), `PATH(${index}, ${size})`);
        assertTamperFails(proof, (tampered) => verifyInclusion(leaves[index]!, index, size, tampered, root));
        if (size > 1) assert.equal(verifyInclusion(leaves[(index + 1) % size]!, index, size, proof, root), false);
      }
    }
  }
});

test("every consistency proof (m, n) up to 64 equals PROOF and verifies; tampered ones fail", async () => {
  const leaves = leavesOf(64);
  const log = logOf(leaves);
  const roots = Array.from({ length: 65 }, (_, size) => specRoot(leaves.slice(0, size)));
  for (let n = 1; n <= 64; n++) {
    for (let m = 0; m <= n; m++) {
      const proof = await log.consistencyProof(m, n);
      assert.deepEqual(proof.map(hex), specProof(m, leaves.slice(0, n)).map(hex), `PROOF(${m}, ${n})`);
      assert.ok(verifyConsistency(m, n, roots[m]!, roots[n]!, proof), `leash: ${m} → ${n}`);
      if (m > 0 && m < n) {
        assert.ok(specVerifyConsistency(m, n, roots[m]!, roots[n]!, proof), `checker: ${m} → ${n}`);
        assertTamperFails(proof, (tampered) => verifyConsistency(m, n, roots[m]!, roots[n]!, tampered));
        // A different old tree (one leaf changed) is not a prefix.
        const forked = specRoot([...leaves.slice(0, m - 1), specLeaf(Buffer.from("fork"))]);
        assert.equal(verifyConsistency(m, n, forked, roots[n]!, proof), false, `fork ${m} → ${n}`);
      }
    }
  }
});

test("random larger sizes: roots, inclusion and consistency proofs agree with the checker", async () => {
  const leaves = leavesOf(20_000);
  const log = logOf(leaves);
  let seed = 12;
  const random = (below: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % below;
  };
  for (let round = 0; round < 12; round++) {
    const n = 1 + random(leaves.length);
    const m = 1 + random(n);
    const rootN = specRoot(leaves.slice(0, n));
    const rootM = specRoot(leaves.slice(0, m));
    assert.equal(hex(await log.root(n)), hex(rootN));
    const index = random(n);
    assert.ok(specVerifyInclusion(index, n, leaves[index]!, await log.inclusionProof(index, n), rootN));
    const proof = await log.consistencyProof(m, n);
    assert.ok(m === n || specVerifyConsistency(m, n, rootM, rootN, proof), `${m} → ${n}`);
  }
});

test("a root or a proof reads O(log n) stored nodes, not the log", async () => {
  const store = new CountingStore();
  const log = logOf(leavesOf(100_000), store);
  for (const size of [99_999, 65_537, 12_345]) {
    store.reads = 0;
    await log.root(size);
    assert.ok(store.reads <= 17, `root(${size}) read ${store.reads}`);
    store.reads = 0;
    await log.inclusionProof(size - 1, size);
    assert.ok(store.reads <= 2 * 17, `inclusion read ${store.reads}`);
    store.reads = 0;
    await log.consistencyProof(size - 5_000, size);
    assert.ok(store.reads <= 2 * 17, `consistency read ${store.reads}`);
  }
});

test("a log reopened from its node store, or caught up from a leaf source, gives the same roots and proofs", async () => {
  const leaves = leavesOf(1000);
  const store = new MemoryNodeStore();
  const first = logOf(leaves.slice(0, 777), store);
  const reopened = await MerkleLog.open(store, 777);
  assert.equal(hex(await reopened.root()), hex(await first.root()));
  await reopened.append(leaves.slice(777));
  assert.equal(hex(await reopened.root()), hex(specRoot(leaves)));
  const caughtUp = new MerkleLog(new MemoryNodeStore());
  await caughtUp.appendFrom({ size: () => leaves.length, leafHashes: (start, end) => leaves.slice(start, end) });
  assert.equal(hex(await caughtUp.root()), hex(specRoot(leaves)));
  assert.equal(hex(await caughtUp.hashAt(3, 5)), hex(specRoot(leaves.slice(40, 48))));
});

test("known tree hashes: RFC 6962 roots of transparency-dev/merkle's leaves and the Go sumdb leaf of hello world", async () => {
  // transparency-dev/merkle testonly/constants.go: LeafInputs and RootHashes for sizes 0..8.
  const inputs = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"];
  const roots = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  ];
  const log = logOf(inputs.map((input) => leafHash(Buffer.from(input, "hex"))));
  for (let size = 0; size <= 8; size++) assert.equal(hex(await log.root(size)), roots[size], `size ${size}`);
  // golang.org/x/mod sumdb/tlog note_test.go: RecordHash("hello world") in its tree note.
  assert.equal(
    Buffer.from(leafHash(Buffer.from("hello world"))).toString("base64"),
    "TszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0=",
  );
});

test("real Certificate Transparency proofs verify: Google Argon 2020, as kept in golang.org/x/mod sumdb/tlog testdata", async () => {
  const vectors = (await import("./argon2020.json", { with: { type: "json" } })).default;
  const root = b64(vectors.sth.sha256_root_hash);
  const leaf = leafHash(b64(vectors.entry.leaf_input));
  const path = vectors.proof.audit_path.map(b64);
  assert.ok(verifyInclusion(leaf, vectors.proof.leaf_index, vectors.sth.tree_size, path, root));
  assert.ok(specVerifyInclusion(vectors.proof.leaf_index, vectors.sth.tree_size, leaf, path, root));
  assert.equal(verifyInclusion(leaf, vectors.proof.leaf_index + 1, vectors.sth.tree_size, path, root), false);
  const consistency = vectors.consistency.consistency.map(b64);
  const oldRoot = b64(vectors.oldRoot);
  assert.ok(verifyConsistency(vectors.oldSize, vectors.sth.tree_size, oldRoot, root, consistency));
  assert.ok(specVerifyConsistency(vectors.oldSize, vectors.sth.tree_size, oldRoot, root, consistency));
  assert.equal(verifyConsistency(vectors.oldSize + 1, vectors.sth.tree_size, oldRoot, root, consistency), false);
});

test("verification never throws on malformed input, and the log refuses sizes and indexes it does not hold", async () => {
  const log = logOf(leavesOf(10));
  const root = await log.root();
  const values: unknown[] = [null, -1, 1.5, Number.NaN, "3", new Uint8Array(31), [new Uint8Array(3)], {}];
  for (const value of values) {
    assert.equal(verifyInclusion(value as Hash, 0, 10, [], root), false);
    assert.equal(verifyInclusion(leavesOf(1)[0]!, value as number, 10, [], root), false);
    assert.equal(verifyConsistency(value as number, 10, root, root, []), false);
    assert.equal(verifyConsistency(5, 10, root, root, value as Hash[]), false);
  }
  for (const call of [
    () => log.root(11),
    () => log.inclusionProof(10, 10),
    () => log.consistencyProof(6, 5),
    () => log.hashAt(4, 0),
  ]) {
    await assert.rejects(call(), (error) => isLeashError(error, "invalid_option"));
  }
  assert.throws(
    () => log.append([new Uint8Array(31)]),
    (error) => isLeashError(error, "invalid_option"),
  );
});
