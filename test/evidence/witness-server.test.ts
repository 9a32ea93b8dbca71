import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { keygen } from "../../src/index.js";
import { specVerifyCosignature } from "./spec-cosignature.js";
import { specOpenNote } from "./spec-checker.js";
import {
  post,
  startWitnessProcess,
  stopWitness,
  TestLog,
  witnessArgs,
  witnessFolder,
  witnessOf,
} from "./witness-support.js";

test("cosigns a first checkpoint and a consistent later one, each cosignature verifying by the spec", async (t) => {
  const log = new TestLog().grow(5);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  const first = await post(witness.url, log.body(0));
  assert.equal(first.status, 200, first.text);
  const note = log.checkpoint() + first.text;
  const time = specVerifyCosignature(note, witness.verifierKey);
  assert.ok(time !== null && Math.abs(time - Date.now() / 1000) < 600, `cosignature time ${time}`);
  assert.ok(specOpenNote(note, log.keys.verifierKey) !== null, "the log's own signature still verifies");

  log.grow(12);
  const later = await post(witness.url, log.body(5));
  assert.equal(later.status, 200, later.text);
  assert.ok(specVerifyCosignature(log.checkpoint() + later.text, witness.verifierKey) !== null);
  // The cosignature is of the whole checkpoint: it does not verify over the earlier one.
  assert.equal(specVerifyCosignature(log.checkpoint(5) + later.text, witness.verifierKey), null);

  // The monitoring endpoint serves the latest checkpoint with the log's signature and the cosignature.
  const hash = createHash("sha256").update(log.origin).digest("hex");
  const served = await (await fetch(`${witness.url}/${hash}/checkpoint`)).text();
  assert.ok(served.startsWith(`${log.origin}\n17\n`), served);
  assert.ok(specOpenNote(served, log.keys.verifierKey) !== null);
  assert.ok(specVerifyCosignature(served, witness.verifierKey) !== null);
});

test("refuses a rollback: 400 when the old size is above the checkpoint's, 409 with its size when it claims another", async (t) => {
  const log = new TestLog().grow(9);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  assert.equal((await post(witness.url, log.body(0))).status, 200);
  const above = await post(witness.url, log.body(9, 4));
  assert.equal(above.status, 400, above.text);
  const claimed = await post(witness.url, log.body(2, 4));
  assert.equal(claimed.status, 409);
  assert.equal(claimed.text, "9\n");
  assert.equal(claimed.type, "text/x.tlog.size");
  const fromZero = await post(witness.url, log.body(0, 4));
  assert.equal(fromZero.status, 409);
  assert.equal(fromZero.text, "9\n");
});

test("refuses a fork with 422: the same size with another root, and a larger tree not consistent with the last", async (t) => {
  const log = new TestLog().grow(6);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  assert.equal((await post(witness.url, log.body(0))).status, 200);
  const sameSize = log.fork(3).grow(3);
  const equal = await post(witness.url, sameSize.body(6, 6));
  assert.equal(equal.status, 422, equal.text);
  const larger = log.fork(4).grow(7);
  // The proof is a true one of the forked tree, from its own size 6: it cannot reach the root cosigned.
  const inconsistent = await post(witness.url, larger.body(6));
  assert.equal(inconsistent.status, 422, inconsistent.text);
  // And the true extension is still cosigned afterwards.
  log.grow(5);
  assert.equal((await post(witness.url, log.body(6))).status, 200);
});

test("refuses with 403 a checkpoint signed by no key trusted for its origin, or with a bad signature by one", async (t) => {
  const log = new TestLog().grow(3);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  const stranger = keygen(log.origin);
  const unknown = await post(witness.url, log.body(0, 3, log.checkpoint(3, stranger.signerKey)));
  assert.equal(unknown.status, 403, unknown.text);
  const note = log.checkpoint(3);
  const tampered = note.replace(/\n3\n/, "\n2\n");
  const bad = await post(witness.url, `old 0\n\n${tampered}`);
  assert.equal(bad.status, 403, bad.text);
});

test("answers 404 for an origin it does not witness", async (t) => {
  const log = new TestLog().grow(3);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  const other = new TestLog("example.com/other").grow(3);
  const answer = await post(witness.url, other.body(0));
  assert.equal(answer.status, 404, answer.text);
});

test("answers 400 for a malformed body", async (t) => {
  const log = new TestLog().grow(4);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  const note = log.checkpoint();
  const bodies = [
    "",
    note,
    `old 01\n\n${note}`,
    `old -1\n\n${note}`,
    `old 0\nnot base64!\n\n${note}`,
    `old 0\n${Buffer.alloc(31).toString("base64")}\n\n${note}`,
    `old 0\n${`${Buffer.alloc(32).toString("base64")}\n`.repeat(64)}\n${note}`,
    "old 0\n\nexample.com/leash\n4\nnot a root\n\n\u2014 x AAAAAAAA\n",
    `old 0\n\n${note.replace(/\n\n/, "\n")}`,
  ];
  for (const body of bodies) {
    const answer = await post(witness.url, body);
    assert.equal(answer.status, 400, `${JSON.stringify(body.slice(0, 40))}: ${answer.status} ${answer.text}`);
  }
  // A non-empty proof from the old size 0 is 422, as is a size-0 checkpoint without the empty root.
  const proofFromZero = `old 0\n${Buffer.alloc(32).toString("base64")}\n\n${note}`;
  assert.equal((await post(witness.url, proofFromZero)).status, 422);
  assert.equal((await post(witness.url, log.body(0))).status, 200, "the witness still works");
});

test("survives kill -9: started again on the same --db it still refuses the rollback", async (t) => {
  const log = new TestLog().grow(10);
  const first = await witnessOf(t, log.origin, log.keys.verifierKey);
  assert.equal((await post(first.url, log.body(0))).status, 200);
  first.child.kill("SIGKILL");
  assert.equal(await first.exited, "SIGKILL");
  const again = await startWitnessProcess(
    witnessArgs(first.keyFile, join(first.dir, "witness.db"), log.origin, log.keys.verifierKey),
  );
  t.after(() => stopWitness(again));
  assert.equal(again.verifierKey, first.verifierKey);
  const rollback = await post(again.url, log.body(0, 7));
  assert.equal(rollback.status, 409);
  assert.equal(rollback.text, "10\n");
  assert.equal((await post(again.url, log.body(10, 7))).status, 400);
  assert.equal((await post(again.url, log.fork(5).grow(5).body(10))).status, 422);
});

test("of concurrent submissions from the same old size, even to two processes on one --db, exactly one is cosigned", async (t) => {
  const log = new TestLog().grow(4);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey);
  const twin = await startWitnessProcess(
    witnessArgs(witness.keyFile, join(witness.dir, "witness.db"), log.origin, log.keys.verifierKey),
  );
  t.after(() => stopWitness(twin));
  assert.equal((await post(witness.url, log.body(0))).status, 200);
  const branches = [1, 2, 3, 4, 5, 6, 7, 8].map((extra) => log.fork(4).grow(extra));
  const answers = await Promise.all(
    branches.map((branch, index) => post(index % 2 === 0 ? witness.url : twin.url, branch.body(4))),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409, 409, 409], answers.map((a) => a.text).join(""));
  const winner = branches[answers.findIndex((answer) => answer.status === 200)]!;
  for (const answer of answers.filter((each) => each.status === 409)) {
    assert.equal(answer.text, `${winner.leaves.length}\n`);
  }
});

test("exits 0 on SIGTERM", async () => {
  const log = new TestLog().grow(1);
  const folder = witnessFolder();
  try {
    const witness = await startWitnessProcess(witnessArgs(folder.keyFile, undefined, log.origin, log.keys.verifierKey));
    assert.equal((await post(witness.url, log.body(0))).status, 200);
    assert.equal(await stopWitness(witness), 0);
  } finally {
    folder.remove();
  }
});
