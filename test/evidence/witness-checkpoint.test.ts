import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlAuditSink } from "../../src/index.js";
import { evidenceLogOf, type EvidenceLogOwner } from "../../src/evidence/index.js";
import { eachStore } from "../cli/cli-stores.js";
import { errorLine, leash, tempFolder } from "../cli/cli-helpers.js";
import { jsonlTrail, makeKeys, rebuildFrom, runInto, trailRecords, writeTrail } from "../cli/evidence-helpers.js";
import { specVerifyCosignature } from "./spec-cosignature.js";
import { specCheckpoint, specOpenNote } from "./spec-checker.js";
import { post, twoWitnesses, type WitnessProcess } from "./witness-support.js";

const ORIGIN = "example.com/leash";

/** Appends runs of the given lengths to a JSONL trail. */
async function appendRuns(path: string, steps: readonly number[]): Promise<void> {
  const sink = new JsonlAuditSink(path);
  await runInto(sink, steps);
  await sink.close();
}

/** Whether the note verifies by the log key and carries a cosignature by each witness, by the spec checkers. */
function cosignedByAll(note: string, verifierKey: string, witnesses: readonly WitnessProcess[]): boolean {
  return (
    specOpenNote(note, verifierKey) !== null &&
    witnesses.every((witness) => specVerifyCosignature(note, witness.verifierKey) !== null)
  );
}

test("checkpoint --witness stores and prints the note with each witness's cosignature, from the size each last cosigned", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path } = await jsonlTrail(folder.path, [1, 2]);
  const { keyFile, verifierKey } = makeKeys(folder.path);
  const witnesses = await twoWitnesses(t, ORIGIN, verifierKey);
  const urls = witnesses.flatMap((witness) => ["--witness", `${witness.url}=${witness.verifierKey}`]);
  const sign = (out: string) =>
    leash(["checkpoint", path, "--key-file", keyFile, "--origin", ORIGIN, "--out", out, ...urls], { cwd: folder.path });

  const first = sign("cp.note");
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stderr, /Cosigned by the witness at http:\/\/127\.0\.0\.1:\d+\. Its cosignature verifies/);
  const note = readFileSync(join(folder.path, "cp.note"), "utf8");
  assert.ok(cosignedByAll(note, verifierKey, witnesses), note);
  const verified = leash(["verify", path, "--checkpoint", "cp.note", "--key", verifierKey], { cwd: folder.path });
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);

  // The log grows: the next checkpoint is sent with the proof from the size in cp.note, which it replaces.
  await appendRuns(path, [3]);
  const second = sign("cp.note");
  assert.equal(second.status, 0, second.stderr);
  const later = readFileSync(join(folder.path, "cp.note"), "utf8");
  assert.equal(specCheckpoint(specOpenNote(later, verifierKey)!).size, trailRecords(path).length);
  assert.ok(cosignedByAll(later, verifierKey, witnesses), later);

  // With no checkpoint kept to start from, each witness's 409 gives its size, and the proof from it follows.
  await appendRuns(path, [1]);
  const json = leash(["checkpoint", path, "--key-file", keyFile, "--origin", ORIGIN, "--json", ...urls], {
    cwd: folder.path,
  });
  assert.equal(json.status, 0, json.stderr);
  const output = JSON.parse(json.stdout) as { note: string; witnesses: { url: string; cosigned: boolean }[] };
  assert.deepEqual(
    output.witnesses,
    witnesses.map(({ url }) => ({ url, cosigned: true, verified: true })),
  );
  assert.ok(cosignedByAll(output.note, verifierKey, witnesses));
});

test("checkpoint --witness exits 1 naming the refusal when the trail was rewritten: the witnesses keep the size they cosigned", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, runs } = await jsonlTrail(folder.path, [2, 2]);
  const { keyFile, verifierKey } = makeKeys(folder.path);
  const witnesses = await twoWitnesses(t, ORIGIN, verifierKey);
  const urls = witnesses.flatMap((witness) => ["--witness", witness.url]);
  const args = ["checkpoint", path, "--key-file", keyFile, "--origin", ORIGIN, "--out", "cp.note", ...urls];
  assert.equal(leash(args, { cwd: folder.path }).status, 0);
  const size = trailRecords(path).length;

  // An operator rewrites the first run (its chain rebuilt, so the trail's chains verify) and adds a run.
  writeTrail(
    path,
    rebuildFrom(trailRecords(path), runs[0]!, 1, (record) => ({ ...record, at: "2020-01-01T00:00:00.000Z" })),
  );
  await appendRuns(path, [1]);
  const refused = leash(args, { cwd: folder.path });
  assert.equal(refused.status, 1, refused.stdout + refused.stderr);
  const { code, message } = errorLine(refused);
  assert.equal(code, "witness_refused");
  assert.match(message, /refused the checkpoint with 422/);
  for (const witness of witnesses) {
    assert.ok(message.includes(witness.url), message);
    // Each witness still holds the size it cosigned before the rewrite.
    const answer = await post(witness.url, `old 0\n\n${readFileSync(join(folder.path, "cp.note"), "utf8")}`);
    assert.deepEqual([answer.status, answer.text], [409, `${size}\n`]);
  }
});

test("checkpoint --witness exits 3 when a witness cannot be reached", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path } = await jsonlTrail(folder.path, [1]);
  const { keyFile } = makeKeys(folder.path);
  const result = leash(
    ["checkpoint", path, "--key-file", keyFile, "--origin", ORIGIN, "--witness", "http://127.0.0.1:1"],
    { cwd: folder.path },
  );
  assert.equal(result.status, 3, result.stderr);
  assert.equal(errorLine(result).code, "witness_unavailable");
});

eachStore(
  "checkpoint --witness on a store keeps the cosigned note beside the log, and cosigns its extension",
  async (t, target) => {
    await runInto(target.store, [1, 2]);
    const { keyFile, verifierKey } = makeKeys(target.cwd);
    const witnesses = await twoWitnesses(t, ORIGIN, verifierKey);
    const urls = witnesses.flatMap((witness) => ["--witness", witness.url]);
    const args = ["checkpoint", ...target.args, "--key-file", keyFile, "--origin", ORIGIN, "--json", ...urls];
    const log = evidenceLogOf(target.store as unknown as EvidenceLogOwner);
    for (const more of [[], [3], [1, 1]]) {
      await runInto(target.store, more);
      const result = leash(args, { cwd: target.cwd });
      assert.equal(result.status, 0, result.stderr);
      const { note } = JSON.parse(result.stdout) as { note: string };
      assert.ok(cosignedByAll(note, verifierKey, witnesses), note);
      assert.equal(specCheckpoint(specOpenNote(note, verifierKey)!).size, (await target.store.read()).length);
      assert.equal((await log.latestCheckpoint())?.note, note, "the store keeps the note with the cosignatures");
    }
  },
);
