import { test } from "node:test";
import assert from "node:assert/strict";
import { specVerifyCosignature } from "./spec-cosignature.js";
import { post, TestLog, twoWitnesses, type WitnessProcess } from "./witness-support.js";

/**
 * What a dishonest log can get from a witness for its checkpoint of `log`: it tries every old size it
 * might claim (0 up to the checkpoint's size), each with the true proof of the tree it shows.
 */
async function everyAttempt(witness: WitnessProcess, log: TestLog): Promise<string | undefined> {
  for (let oldSize = 0; oldSize <= log.leaves.length; oldSize++) {
    const answer = await post(witness.url, log.body(oldSize));
    if (answer.status === 200) return answer.text;
  }
  return undefined;
}

/**
 * A client that requires a cosignature from each witness: it gathers them onto the note and accepts
 * it only when the spec checker verifies one by every witness key.
 */
async function clientAccepts(witnesses: WitnessProcess[], log: TestLog): Promise<{ accepted: boolean; by: string[] }> {
  let note = log.checkpoint();
  for (const witness of witnesses) note += (await everyAttempt(witness, log)) ?? "";
  const by = witnesses.filter((witness) => specVerifyCosignature(note, witness.verifierKey) !== null);
  return { accepted: by.length === witnesses.length, by: by.map((witness) => witness.url) };
}

test("a client that requires a cosignature from each witness cannot get one for a fork of what any of them saw", async (t) => {
  const log = new TestLog().grow(5);
  const [w1, w2] = await twoWitnesses(t, log.origin, log.keys.verifierKey);
  // The log shows checkpoint A (size 5) to witness 1 only.
  assert.equal((await post(w1!.url, log.body(0))).status, 200);

  // Then it shows a fork B (sharing 3 leaves, size 8) to both: witness 2, which never saw A, cosigns it;
  // witness 1 refuses every old size and proof the log can offer. The client does not accept B.
  const fork = log.fork(3).grow(5);
  const forked = await clientAccepts([w1!, w2!], fork);
  assert.deepEqual(forked, { accepted: false, by: [w2!.url] });

  // Nor can the log go back to A's line: witness 2 has now seen B, so an extension of A lacks its cosignature.
  log.grow(4);
  const honest = await clientAccepts([w1!, w2!], log);
  assert.deepEqual(honest, { accepted: false, by: [w1!.url] });
});

test("once both witnesses saw a checkpoint, its extensions are accepted and no fork of it gets any cosignature", async (t) => {
  const log = new TestLog().grow(6);
  const witnesses = await twoWitnesses(t, log.origin, log.keys.verifierKey);
  assert.equal((await clientAccepts(witnesses, log)).accepted, true);
  // Forks of the 6 leaves cosigned, at the same size or larger, after 0 to 5 shared leaves.
  for (const [shared, size] of [
    [0, 9],
    [2, 6],
    [4, 6],
    [5, 9],
  ] as const) {
    const fork = log.fork(shared).grow(size - shared);
    const result = await clientAccepts(witnesses, fork);
    assert.deepEqual(result, { accepted: false, by: [] }, `a fork of size ${size} after ${shared} leaves`);
  }
  log.grow(3);
  assert.equal((await clientAccepts(witnesses, log)).accepted, true);
});
