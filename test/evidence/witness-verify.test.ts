// A reader can require witnesses: verify --checkpoint --witness-key KEY (repeatable) --witnesses K, and
// verifyCheckpoint(source, note, { key, witnessKeys, witnesses }) the same in code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLeashError, keygen, signCheckpoint, verifyCheckpoint } from "../../src/index.js";
import { addCosignatures, cosignCheckpoint, cosignerKeygen } from "../../src/evidence/index.js";
import { leash, tempFolder } from "../cli/cli-helpers.js";
import { jsonlTrail } from "../cli/evidence-helpers.js";

const ORIGIN = "example.com/leash";
const log = keygen(ORIGIN);
const w1 = cosignerKeygen("witness.example/w1");
const w2 = cosignerKeygen("witness.example/w2");

async function signedTrail(t: { after: (fn: () => void) => void }) {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path } = await jsonlTrail(folder.path, [1, 2]);
  const note = await signCheckpoint(path, { key: log.signerKey, origin: ORIGIN });
  return { folder: folder.path, path, note };
}

const kinds = (problems: { problem: string }[]): string[] => problems.map(({ problem }) => problem);

test("verifyCheckpoint with witnessKeys requires `witnesses` valid cosignatures of this checkpoint (default all), else missing_cosignature", async (t) => {
  const { path, note } = await signedTrail(t);
  const both = { key: log.verifierKey, witnessKeys: [w1.verifierKey, w2.verifierKey] };
  assert.deepEqual(kinds(await verifyCheckpoint(path, note, both)), ["missing_cosignature"]);
  const byW1 = addCosignatures(note, [cosignCheckpoint(note, w1.signerKey)]);
  assert.deepEqual(kinds(await verifyCheckpoint(path, byW1, both)), ["missing_cosignature"]);
  assert.deepEqual(await verifyCheckpoint(path, byW1, { ...both, witnesses: 1 }), []);
  const byBoth = addCosignatures(byW1, [cosignCheckpoint(note, w2.signerKey)]);
  assert.deepEqual(await verifyCheckpoint(path, byBoth, both), []);
  // A cosignature by w2 of another checkpoint does not count.
  const [origin, size, root] = note.split("\n") as [string, string, string];
  const other = cosignCheckpoint(`${origin}\n${Number(size) + 1}\n${root}\n`, w2.signerKey);
  const stale = addCosignatures(byW1, [other]);
  const [problem] = await verifyCheckpoint(path, stale, both);
  assert.equal(problem?.problem, "missing_cosignature");
  assert.match(problem.message, /witness\.example\/w2/);
  await assert.rejects(verifyCheckpoint(path, byBoth, { ...both, witnesses: 3 }), (error: unknown) =>
    isLeashError(error, "invalid_option"),
  );
  await assert.rejects(
    verifyCheckpoint(path, byBoth, { key: log.verifierKey, witnessKeys: [log.verifierKey] }),
    (error: unknown) => isLeashError(error, "invalid_key"),
  );
});

test("verify --checkpoint --witness-key exits 1 with missing_cosignature until enough witnesses (--witnesses K, default all) cosigned", async (t) => {
  const { folder, path, note } = await signedTrail(t);
  const byW1 = addCosignatures(note, [cosignCheckpoint(note, w1.signerKey)]);
  writeFileSync(join(folder, "cp.note"), byW1);
  const base = ["verify", path, "--checkpoint", "cp.note", "--key", log.verifierKey, "--json"];
  const keys = ["--witness-key", w1.verifierKey, "--witness-key", w2.verifierKey];
  const all = leash([...base, ...keys], { cwd: folder });
  assert.equal(all.status, 1, all.stderr);
  assert.deepEqual(kinds(JSON.parse(all.stdout) as { problem: string }[]), ["missing_cosignature"]);
  const one = leash([...base, ...keys, "--witnesses", "1"], { cwd: folder });
  assert.equal(one.status, 0, one.stdout + one.stderr);
  assert.equal(leash([...base, "--witness-key", w1.verifierKey], { cwd: folder }).status, 0);
  const plain = leash(["verify", path, "--witness-key", w1.verifierKey], { cwd: folder });
  assert.equal(plain.status, 2, plain.stderr);
});
