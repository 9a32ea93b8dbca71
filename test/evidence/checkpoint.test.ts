import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  JsonlAuditSink,
  isLeashError,
  keygen,
  makeRecord,
  readAudit,
  signCheckpoint,
  verifyAudit,
  verifyCheckpoint,
  type AuditRecord,
  type CheckpointProblem,
} from "../../src/index.js";
import {
  MemoryNodeStore,
  MerkleLog,
  parseCheckpoint,
  recordLeafHash,
  recordsEvidenceLog,
  signNote,
  type EvidenceLog,
} from "../../src/evidence/index.js";
import { copyOf, interleavedTrail, jsonlOf, temporaryDirectory, timeOf } from "../audit/audit-test-helpers.js";
import { specCheckpoint, specLeaf, specOpenNote, specRoot } from "./spec-checker.js";

const origin = "example.com/leash";
const { signerKey, verifierKey } = keygen(origin);
const directory = temporaryDirectory();
let files = 0;

/** A JSONL trail of three interleaved runs (18 records) written by the JSONL sink. */
async function trailFile(records: readonly AuditRecord[] = interleavedTrail()): Promise<string> {
  const path = join(directory, `trail-${files++}.jsonl`);
  const sink = new JsonlAuditSink(path);
  await sink.append(records);
  await sink.close();
  return path;
}

function rewrite(path: string, records: readonly AuditRecord[]): void {
  writeFileSync(path, jsonlOf(records));
}

const kinds = (problems: readonly CheckpointProblem[]): string[] => problems.map((entry) => entry.problem);

/** Rebuilds a run's chain from `seq` on after changing that record's data, as a writer with access could. */
function rebuildRun(records: readonly AuditRecord[], run: string, seq: number): AuditRecord[] {
  let head: { seq: number; digest: string } | null = null;
  return records.map((record, position) => {
    if (record.run !== run) return record;
    const data = record.seq === seq ? { rewritten: true } : record.data;
    const rebuilt = record.seq < seq ? record : makeRecord(run, head, record.event, data, timeOf(position));
    head = { seq: rebuilt.seq, digest: rebuilt.digest };
    return rebuilt;
  });
}

test("a checkpoint of a JSONL trail is a C2SP note the checker verifies, over the RFC 6962 root of its digests", async () => {
  const path = await trailFile();
  const note = await signCheckpoint(path, { key: signerKey, origin });
  const text = specOpenNote(note, verifierKey);
  assert.ok(text !== null, note);
  const checkpoint = specCheckpoint(text);
  const records = readAudit(path);
  assert.deepEqual({ origin: checkpoint.origin, size: checkpoint.size }, { origin, size: records.length });
  assert.ok(checkpoint.root.equals(specRoot(records.map((record) => specLeaf(Buffer.from(record.digest, "hex"))))));
  assert.match(note, new RegExp(`^${origin}\\n18\\n[A-Za-z0-9+/]{43}=\\n\\n\u2014 ${origin} [A-Za-z0-9+/]{91}=\\n$`));
  assert.deepEqual(await verifyCheckpoint(path, note, { key: verifierKey }), []);
});

test("a log that grew after the checkpoint still holds it and extends it", async () => {
  const records = interleavedTrail(["alpha", "beta", "gamma"], 6);
  const path = await trailFile(records.slice(0, 10));
  const note = await signCheckpoint(path, { key: signerKey, origin });
  rewrite(path, records);
  assert.deepEqual(await verifyCheckpoint(path, note, { key: verifierKey }), []);
});

test("tampering that passes verifyAudit today fails verifyCheckpoint, naming the problem", async () => {
  const records = interleavedTrail();
  const cases: Array<[string, AuditRecord[], string]> = [
    // The last record of a run rewritten with its digest recomputed: no later link to break.
    ["a rewritten record", rebuildRun(records, "gamma", 5), "root_mismatch"],
    ["a cut tail", records.slice(0, -2), "log_shorter"],
    ["a removed run", records.filter((record) => record.run !== "beta"), "log_shorter"],
    ["a rebuilt chain", rebuildRun(records, "alpha", 2), "root_mismatch"],
    ["two runs' records swapped", [records[1]!, records[0]!, ...records.slice(2)], "root_mismatch"],
  ];
  for (const [label, tampered, expected] of cases) {
    const path = await trailFile(records);
    const note = await signCheckpoint(path, { key: signerKey, origin });
    rewrite(path, tampered);
    assert.deepEqual(verifyAudit(readAudit(path)), [], `${label} passes verifyAudit`);
    const problems = await verifyCheckpoint(path, note, { key: verifierKey });
    assert.deepEqual(kinds(problems), [expected], label);
    assert.ok(problems[0]!.message.length > 20);
  }
});

test("a removed run hidden behind new records is a root mismatch", async () => {
  const records = interleavedTrail(["alpha", "beta", "gamma"], 6);
  const path = await trailFile(records);
  const note = await signCheckpoint(path, { key: signerKey, origin });
  const later = interleavedTrail(["delta"], 8);
  rewrite(path, [...records.filter((record) => record.run !== "beta"), ...later]);
  assert.deepEqual(verifyAudit(readAudit(path)), []);
  assert.deepEqual(kinds(await verifyCheckpoint(path, note, { key: verifierKey })), ["root_mismatch"]);
});

test("a record changed without its digest is named by the chain check, with run and seq", async () => {
  const records = interleavedTrail();
  const path = await trailFile(records);
  const note = await signCheckpoint(path, { key: signerKey, origin });
  const tampered = copyOf(records);
  tampered[4] = { ...tampered[4]!, data: { changed: true } };
  rewrite(path, tampered);
  const problems = await verifyCheckpoint(path, note, { key: verifierKey });
  assert.deepEqual(
    problems.map(({ problem, run, seq }) => ({ problem, run, seq })),
    [{ problem: "changed", run: records[4]!.run, seq: records[4]!.seq }],
  );
});

test("a signature by another key is unknown_key; a changed signature or text is bad_signature", async () => {
  const path = await trailFile();
  const note = await signCheckpoint(path, { key: signerKey, origin });
  const stranger = keygen(origin);
  const foreign = await signCheckpoint(path, { key: stranger.signerKey, origin });
  assert.deepEqual(kinds(await verifyCheckpoint(path, foreign, { key: verifierKey })), ["unknown_key"]);
  const lines = note.split("\n");
  const signature = Buffer.from(lines[4]!.split(" ")[2]!, "base64");
  signature[10]! ^= 1;
  const flipped = [
    ...lines.slice(0, 4),
    `${lines[4]!.split(" ").slice(0, 2).join(" ")} ${signature.toString("base64")}`,
    "",
  ].join("\n");
  assert.deepEqual(kinds(await verifyCheckpoint(path, flipped, { key: verifierKey })), ["bad_signature"]);
  const resized = note.replace(/\n18\n/, "\n17\n");
  assert.deepEqual(kinds(await verifyCheckpoint(path, resized, { key: verifierKey })), ["bad_signature"]);
  // A cosignature by a witness (a key not given) beside the log's own is ignored.
  const cosigned = note + signNote(note.slice(0, note.indexOf("\n\n") + 1), stranger.signerKey).split("\n\n")[1]!;
  assert.deepEqual(await verifyCheckpoint(path, cosigned, { key: verifierKey }), []);
});

test("a malformed checkpoint, even validly signed, is malformed_checkpoint; so is a note that is not a note", async () => {
  const path = await trailFile();
  const root = Buffer.alloc(32, 7).toString("base64");
  const texts = [
    `${origin}\n018\n${root}\n`,
    `\n18\n${root}\n`,
    `${origin}\n-1\n${root}\n`,
    `${origin}\n18\n${Buffer.alloc(31).toString("base64")}\n`,
    `${origin}\n18\n${root}\n\n`,
    `${origin}\n18\n`,
    `${origin}\n1e3\n${root}\n`,
    `${origin}\n99999999999999999999\n${root}\n`,
  ];
  for (const text of texts) {
    assertCodeThrows(() => parseCheckpoint(text), "malformed_checkpoint", text);
    if (!text.endsWith("\n\n")) {
      const problems = await verifyCheckpoint(path, signNote(text, signerKey), { key: verifierKey });
      assert.deepEqual(kinds(problems), ["malformed_checkpoint"], JSON.stringify(text));
    }
  }
  for (const note of ["", "hello", `${origin}\n18\n${root}\n`, 42]) {
    assert.deepEqual(kinds(await verifyCheckpoint(path, note as string, { key: verifierKey })), [
      "malformed_checkpoint",
    ]);
  }
  assert.deepEqual(parseCheckpoint(`${origin}\n0\n${root}\nextension one\n`).extensions, ["extension one"]);
});

test("a verifier key that does not parse throws invalid_key; a missing trail is a problem, not a throw", async () => {
  const path = await trailFile();
  const note = await signCheckpoint(path, { key: signerKey, origin });
  // The last character changed to another one: a random key may already end in "A".
  const changed = verifierKey.slice(0, -1) + (verifierKey.endsWith("A") ? "B" : "A");
  for (const key of ["", signerKey, "name+1234+AAAA", changed]) {
    await assert.rejects(verifyCheckpoint(path, note, { key }), (error) => isLeashError(error, "invalid_key"));
  }
  const problems = await verifyCheckpoint(join(directory, "nothing.jsonl"), note, { key: verifierKey });
  assert.deepEqual(kinds(problems), ["malformed"]);
});

test("signCheckpoint refuses broken chains (audit_invalid), a bad origin and a key that is not a signer key", async () => {
  const records = copyOf(interleavedTrail());
  records.splice(3, 1);
  const broken = await trailFile();
  rewrite(broken, records);
  await assert.rejects(signCheckpoint(broken, { key: signerKey, origin }), (error) =>
    isLeashError(error, "audit_invalid"),
  );
  const path = await trailFile();
  for (const bad of ["", "two\nlines", "tab\there"]) {
    await assert.rejects(signCheckpoint(path, { key: signerKey, origin: bad }), (error) =>
      isLeashError(error, "invalid_option"),
    );
  }
  await assert.rejects(signCheckpoint(path, { key: verifierKey, origin }), (error) =>
    isLeashError(error, "invalid_key"),
  );
});

test("any EvidenceLog can be checkpointed: signing and verifying both recompute the root from the leaves, never from a stored root", async () => {
  const records = interleavedTrail();
  const inMemory = recordsEvidenceLog(records);
  const note = await signCheckpoint(inMemory, { key: signerKey, origin });
  const merkle = new MerkleLog(new MemoryNodeStore());
  const leaves = records.map((record) => recordLeafHash(record.digest));
  await merkle.append(leaves);
  const reads = { leaves: 0, roots: 0 };
  const stored: EvidenceLog = {
    size: () => merkle.size,
    leafHashes: (start, end) => {
      reads.leaves++;
      return leaves.slice(start, end);
    },
    verifyChains: () => verifyAudit(records),
    root: (size) => {
      reads.roots++;
      return merkle.root(size);
    },
  };
  assert.equal(await signCheckpoint(stored, { key: signerKey, origin }), note);
  assert.deepEqual(reads, { leaves: 1, roots: 0 }, "signing trusts the leaves, not a stored root");
  assert.deepEqual(await verifyCheckpoint(stored, note, { key: verifierKey }), []);
  assert.deepEqual(reads, { leaves: 2, roots: 0 }, "verifying trusts the leaves, not a stored root");
  assert.deepEqual(await verifyCheckpoint(await trailFile(records), note, { key: verifierKey }), []);
  const empty = await signCheckpoint(recordsEvidenceLog([]), { key: signerKey, origin });
  assert.equal(parseCheckpoint(empty.split("\n\n")[0]! + "\n").size, 0);
});

function assertCodeThrows(call: () => unknown, code: "malformed_checkpoint", label: string): void {
  assert.throws(call, (error) => isLeashError(error, code), JSON.stringify(label));
}
