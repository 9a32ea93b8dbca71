import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlAuditSink } from "../../src/index.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";
import {
  jsonlTrail,
  makeKeys,
  runInto,
  specChecksProof,
  trailRecords,
  writeTrail,
  type ProveOutput,
} from "./evidence-helpers.js";

/** A trail of runs of the given lengths, checkpointed by the bin to cp.note. */
async function checkpointed(folder: string, steps: readonly number[]) {
  const trail = await jsonlTrail(folder, steps);
  const keys = makeKeys(folder);
  const signed = leash(
    ["checkpoint", trail.path, "--key-file", keys.keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
    {
      cwd: folder,
    },
  );
  assert.equal(signed.status, 0, signed.stderr);
  return { ...trail, ...keys, note: join(folder, "cp.note") };
}

test("prove prints a proof the spec checker verifies against the checkpoint's root, for a run at every position", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  // Seven runs of different lengths: their last records fall on odd and even leaves, left and right edges.
  const { path, runs, note, verifierKey } = await checkpointed(folder.path, [0, 1, 2, 1, 3, 0, 2]);
  const records = trailRecords(path);
  const signed = readFileSync(note, "utf8");
  for (const run of runs) {
    const result = leash(["prove", run, path, "--checkpoint", note], { cwd: folder.path });
    assert.equal(result.status, 0, result.stderr);
    const output = JSON.parse(result.stdout) as ProveOutput;
    assert.deepEqual(Object.keys(output), ["leafIndex", "treeSize", "leafHash", "proof"]);
    const last = records.filter((record) => record.run === run).at(-1)!;
    assert.equal(output.leafIndex, records.indexOf(last));
    assert.equal(output.treeSize, records.length);
    assert.ok(specChecksProof(signed, verifierKey, output, last.digest), `the proof of ${run} checks`);
    // The same proof does not pass for another record's leaf.
    assert.ok(!specChecksProof(signed, verifierKey, output, records[(output.leafIndex + 1) % records.length]!.digest));
  }
});

test("prove refuses a run logged after the checkpoint and an unknown run, with codes, and proves against the older tree", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, runs, note, verifierKey } = await checkpointed(folder.path, [1, 2]);
  const sink = new JsonlAuditSink(path);
  const [later] = await runInto(sink, [1]);
  await sink.close();
  const after = leash(["prove", later!, path, "--checkpoint", note], { cwd: folder.path });
  assert.equal(after.status, 2);
  assert.equal(errorLine(after).code, "not_in_checkpoint");
  const unknown = leash(["prove", "no-such-run", path, "--checkpoint", note], { cwd: folder.path });
  assert.equal(unknown.status, 2);
  assert.equal(errorLine(unknown).code, "run_not_found");
  // A run of the checkpoint is proved in the checkpoint's tree, not in the longer log's.
  const earlier = leash(["prove", runs[0]!, path, "--checkpoint", note], { cwd: folder.path });
  assert.equal(earlier.status, 0, earlier.stderr);
  const output = JSON.parse(earlier.stdout) as ProveOutput;
  const records = trailRecords(path);
  assert.ok(output.treeSize < records.length);
  const last = records.filter((record) => record.run === runs[0]).at(-1)!;
  assert.ok(specChecksProof(readFileSync(note, "utf8"), verifierKey, output, last.digest));
});

test("prove refuses a log that no longer gives the checkpoint's root, a missing or malformed checkpoint, with codes", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, runs, note } = await checkpointed(folder.path, [1, 2]);
  const missing = leash(["prove", runs[0]!, path, "--checkpoint", "nope.note"], { cwd: folder.path });
  assert.equal(missing.status, 2);
  assert.equal(errorLine(missing).code, "checkpoint_not_found");
  writeFileSync(join(folder.path, "bad.note"), "example.com/leash\n007\nroot\n\n\u2014 x AAAA\n");
  const malformed = leash(["prove", runs[0]!, path, "--checkpoint", "bad.note"], { cwd: folder.path });
  assert.equal(malformed.status, 2);
  assert.equal(errorLine(malformed).code, "malformed_checkpoint");
  const records = trailRecords(path);
  writeTrail(path, records.slice(0, -1));
  const shorter = leash(["prove", runs[0]!, path, "--checkpoint", note], { cwd: folder.path });
  assert.equal(shorter.status, 1);
  assert.equal(errorLine(shorter).code, "checkpoint_mismatch");
  writeTrail(path, [...records.slice(0, -1), { ...records.at(-1)!, digest: "0".repeat(64) }]);
  const changed = leash(["prove", runs[0]!, path, "--checkpoint", note], { cwd: folder.path });
  assert.equal(changed.status, 1);
  assert.equal(errorLine(changed).code, "checkpoint_mismatch");
});
