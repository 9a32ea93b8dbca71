/**
 * The Merkle log benchmark: appending 1,000,000 leaves to a MerkleLog over the in-memory node store
 * (one leaf a call, as a sequencer appends each record, and in batches of 1,000), with its time and
 * memory; then, at n = 10^3 .. 10^6, the median time of the root of the first n leaves (read from
 * stored subtrees), of an inclusion and a consistency proof and of their verification, and the proofs'
 * sizes, which grow with log n. Signing and verifying a checkpoint (the root and one Ed25519 signature)
 * close the table. Prints a Markdown table (or JSON with --json) and writes both to bench/results/
 * (not with --no-save).
 *
 *   node --expose-gc --import tsx bench/merkle.ts [--leaves 1000000] [--samples 1001] [--json] [--no-save]
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { keygen, signCheckpoint, verifyCheckpoint } from "../src/index.js";
import {
  MemoryNodeStore,
  MerkleLog,
  leafHash,
  recordLeafHash,
  verifyConsistency,
  verifyInclusion,
  type EvidenceLog,
  type Hash,
} from "../src/evidence/index.js";
import { machineInfo } from "../src/bench/machine-info.js";
import { median } from "../src/bench/measure.js";
import { seededRandom } from "../src/bench/seeded-random.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    leaves: { type: "string", default: "1000000" },
    samples: { type: "string", default: "1001" },
    json: { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
  },
});
const total = Number(values.leaves);
const samples = Number(values.samples);
if (!Number.isSafeInteger(total) || total < 1000 || !Number.isSafeInteger(samples) || samples < 1) {
  throw new Error("Expected --leaves of at least 1000 and --samples of at least 1.");
}
const gc = (globalThis as { gc?: () => void }).gc;
const collect = (): void => {
  gc?.();
  gc?.();
};
const memory = (): number => {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

const CHUNK = 10_000;
/** Leaf hashes of records `start`.. `start + count`: a record digest is SHA-256 of its index here. */
function leavesFrom(start: number, count: number): Hash[] {
  return Array.from({ length: count }, (_, offset) =>
    recordLeafHash(
      createHash("sha256")
        .update(String(start + offset))
        .digest("hex"),
    ),
  );
}

/** Appends `total` leaves, `batch` at a time, timing only the appends (the leaves are made between). */
function appendAll(log: MerkleLog, batch: number): number {
  let elapsed = 0;
  for (let start = 0; start < total; start += CHUNK) {
    const leaves = leavesFrom(start, Math.min(CHUNK, total - start));
    const begin = performance.now();
    for (let offset = 0; offset < leaves.length; offset += batch) void log.append(leaves.slice(offset, offset + batch));
    elapsed += performance.now() - begin;
  }
  return elapsed;
}

const before = memory();
const store = new MemoryNodeStore();
const log = new MerkleLog(store);
const appendOneMs = appendAll(log, 1);
const afterMemory = memory();
const batchedMs = appendAll(new MerkleLog(new MemoryNodeStore()), 1000);

const random = seededRandom(42);
const below = (n: number): number => Math.floor(random() * n);
async function timeMedian(run: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < samples; index++) {
    const begin = performance.now();
    await run();
    times.push((performance.now() - begin) * 1000);
  }
  return median(times);
}

interface Row {
  n: number;
  rootUs: number;
  inclusionUs: number;
  inclusionHashes: number;
  verifyInclusionUs: number;
  consistencyUs: number;
  consistencyHashes: number;
  verifyConsistencyUs: number;
}
const rows: Row[] = [];
const sizes: number[] = [];
for (let n = 1000; n <= total; n *= 10) sizes.push(n);
// Sizes one short of a power of ten, so that the root is a right edge of several subtrees, read from the store.
for (const size of sizes) {
  const n = size - 1;
  const root = await log.root(n);
  const index = below(n);
  const inclusion = await log.inclusionProof(index, n);
  const leaf = await log.hashAt(0, index);
  const oldSize = 1 + below(n - 1);
  const oldRoot = await log.root(oldSize);
  const consistency = await log.consistencyProof(oldSize, n);
  if (!verifyInclusion(leaf, index, n, inclusion, root) || !verifyConsistency(oldSize, n, oldRoot, root, consistency)) {
    throw new Error(`A proof at n = ${n} does not verify.`);
  }
  rows.push({
    n,
    rootUs: await timeMedian(() => log.root(n)),
    inclusionUs: await timeMedian(() => log.inclusionProof(below(n), n)),
    inclusionHashes: inclusion.length,
    verifyInclusionUs: await timeMedian(() => verifyInclusion(leaf, index, n, inclusion, root)),
    consistencyUs: await timeMedian(() => log.consistencyProof(1 + below(n - 1), n)),
    consistencyHashes: consistency.length,
    verifyConsistencyUs: await timeMedian(() => verifyConsistency(oldSize, n, oldRoot, root, consistency)),
  });
}

const { signerKey, verifierKey } = keygen("example.com/bench");
const evidence: EvidenceLog = {
  size: () => log.size,
  leafHashes: () => [],
  verifyChains: () => [],
  root: (size) => log.root(size),
};
const note = await signCheckpoint(evidence, { key: signerKey, origin: "example.com/bench" });
const signUs = await timeMedian(() => signCheckpoint(evidence, { key: signerKey, origin: "example.com/bench" }));
const verifyUs = await timeMedian(() => verifyCheckpoint(evidence, note, { key: verifierKey }));
const leafUs = await timeMedian(() => leafHash(new Uint8Array(32)));

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const mib = (bytes: number): string => fixed(bytes / 2 ** 20);
const markdown = [
  `${total.toLocaleString("en")} leaves appended to a MerkleLog over the in-memory node store (32 bytes a node, about 2n nodes).`,
  `Times of roots, proofs and checks are medians of ${samples} runs; a proof's index (and a consistency proof's old size) is drawn at random.`,
  ...(gc === undefined ? ["Memory was measured without --expose-gc, so it includes garbage."] : []),
  "",
  "| appending | total, ms | per leaf, µs | memory of the log, MiB |",
  "| --- | ---: | ---: | ---: |",
  `| one leaf a call | ${fixed(appendOneMs, 0)} | ${fixed((appendOneMs * 1000) / total, 2)} | ${mib(afterMemory - before)} |`,
  `| 1,000 leaves a call | ${fixed(batchedMs, 0)} | ${fixed((batchedMs * 1000) / total, 2)} | |`,
  "",
  "| tree size n | root, µs | inclusion proof, µs | its hashes (bytes) | verify it, µs | consistency proof, µs | its hashes (bytes) | verify it, µs |",
  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (row) =>
      `| ${row.n.toLocaleString("en")} | ${fixed(row.rootUs)} | ${fixed(row.inclusionUs)} | ${row.inclusionHashes} (${row.inclusionHashes * 32}) | ` +
      `${fixed(row.verifyInclusionUs)} | ${fixed(row.consistencyUs)} | ${row.consistencyHashes} (${row.consistencyHashes * 32}) | ${fixed(row.verifyConsistencyUs)} |`,
  ),
  "",
  `| checkpoint of the ${total.toLocaleString("en")}-leaf log | median, µs |`,
  "| --- | ---: |",
  `| sign (root from stored subtrees, tlog-checkpoint text, Ed25519) | ${fixed(signUs)} |`,
  `| verify (note, signature, root of the signed size) | ${fixed(verifyUs)} |`,
  `| one leaf hash, for scale | ${fixed(leafUs, 2)} |`,
  "",
].join("\n");

const result = {
  leaves: total,
  samples,
  appendOneMs,
  appendBatchedMs: batchedMs,
  logMemoryBytes: afterMemory - before,
  rows,
  checkpoint: { signUs, verifyUs },
};
process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : markdown);
if (!values["no-save"]) {
  const command = `node --expose-gc --import tsx bench/merkle.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults("merkle", {
    title: "Merkle log benchmark",
    command,
    machine: machineInfo(),
    markdown,
    json: result,
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
