import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { isLeashError } from "../../src/index.js";
import { addCosignatures, openNote, verifyCosignature } from "../../src/evidence/index.js";
import { submitToWitness, witnessCheckpoint } from "../../src/witness/index.js";
import { specVerifyCosignature } from "./spec-cosignature.js";
import { TestLog, witnessOf } from "./witness-support.js";

test("submitToWitness returns the cosignature lines; addCosignatures gives a note both the log and witness keys verify", async (t) => {
  const log = new TestLog().grow(7);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey, { db: false });
  const note = log.checkpoint();
  const lines = await submitToWitness(witness.url, { note, oldSize: 0, proof: [] });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\u2014 witness\.example\/w1 [A-Za-z0-9+/]+=*$/u);
  const cosigned = addCosignatures(note, lines);
  assert.equal(addCosignatures(cosigned, lines), cosigned, "a line already there is not added twice");
  assert.equal(
    openNote(cosigned, [log.keys.verifierKey]).text,
    `${log.origin}\n7\n${log.checkpoint().split("\n")[2]}\n`,
  );
  const { time } = verifyCosignature(cosigned, witness.verifierKey);
  assert.equal(specVerifyCosignature(cosigned, witness.verifierKey), time);

  log.grow(9);
  const later = await submitToWitness(`${witness.url}/`, { note: log.checkpoint(), oldSize: 7, proof: log.proof(7) });
  assert.ok(specVerifyCosignature(addCosignatures(log.checkpoint(), later), witness.verifierKey) !== null);
});

test("a refusal throws witness_refused naming the status and the reason; a 409 carries the witness's size", async (t) => {
  const log = new TestLog().grow(5);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey, { db: false });
  await submitToWitness(witness.url, { note: log.checkpoint(), oldSize: 0, proof: [] });
  await assert.rejects(
    submitToWitness(witness.url, { note: log.checkpoint(3), oldSize: 0, proof: [] }),
    (error: unknown) =>
      isLeashError(error, "witness_refused") &&
      error.details.status === 409 &&
      error.details.size === 5 &&
      /409/.test(error.message) &&
      /last cosigned size 5/.test(error.message),
  );
  const fork = log.fork(2).grow(6);
  await assert.rejects(
    submitToWitness(witness.url, { note: fork.checkpoint(), oldSize: 5, proof: fork.proof(5) }),
    (error: unknown) =>
      isLeashError(error, "witness_refused") && error.details.status === 422 && /not consistent/.test(error.message),
  );
  const other = new TestLog("example.com/other").grow(1);
  await assert.rejects(
    submitToWitness(witness.url, { note: other.checkpoint(), oldSize: 0, proof: [] }),
    (error: unknown) => isLeashError(error, "witness_refused") && error.details.status === 404,
  );
});

test("witnessCheckpoint learns the witness's size from a 409 and resubmits with the proof from it", async (t) => {
  const log = new TestLog().grow(4);
  const witness = await witnessOf(t, log.origin, log.keys.verifierKey, { db: false });
  await submitToWitness(witness.url, { note: log.checkpoint(), oldSize: 0, proof: [] });
  log.grow(6);
  const asked: number[] = [];
  const lines = await witnessCheckpoint(witness.url, {
    note: log.checkpoint(),
    oldSize: 2,
    proofFrom: (oldSize) => {
      asked.push(oldSize);
      return log.proof(oldSize);
    },
  });
  assert.deepEqual(asked, [2, 4]);
  assert.ok(specVerifyCosignature(addCosignatures(log.checkpoint(), lines), witness.verifierKey) !== null);
});

test("a witness that cannot be reached throws witness_unavailable", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  const log = new TestLog().grow(1);
  await assert.rejects(
    submitToWitness(`http://127.0.0.1:${port}`, { note: log.checkpoint(), oldSize: 0, proof: [] }),
    (error: unknown) => isLeashError(error, "witness_unavailable") && error.message.includes(`127.0.0.1:${port}`),
  );
});
