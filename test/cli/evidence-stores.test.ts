import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { evidenceLogOf } from "../../src/evidence/index.js";
import type { EvidenceLogOwner } from "../../src/evidence/index.js";
import { eachStore, type CliStore } from "./cli-stores.js";
import { errorLine, leash } from "./cli-helpers.js";
import { makeKeys, runInto, specChecksProof, type ProveOutput } from "./evidence-helpers.js";
import { cutStoredTail, rebuildStoredRun, removeStoredRun } from "./evidence-store-tamper.js";
import { specCheckpoint, specLeaf, specOpenNote, specRoot } from "../evidence/spec-checker.js";

interface Problem {
  problem: string;
  run?: string;
  seq?: number;
}

/** Three runs in the store, keys, and a checkpoint of the store taken by the bin (cp.note). */
async function checkpointed(target: CliStore) {
  const runs = await runInto(target.store, [1, 2, 3]);
  const keys = makeKeys(target.cwd);
  const result = leash(
    [
      "checkpoint",
      ...target.args,
      "--key-file",
      keys.keyFile,
      "--origin",
      "example.com/leash",
      "--out",
      "cp.note",
      "--json",
    ],
    { cwd: target.cwd },
  );
  assert.equal(result.status, 0, result.stderr);
  const json = JSON.parse(result.stdout) as { origin: string; treeSize: number; rootHash: string; note: string };
  return { runs, ...keys, json, note: join(target.cwd, "cp.note") };
}

function checkJson(target: CliStore, note: string, key: string): { status: number | null; problems: Problem[] } {
  const result = leash(["verify", ...target.args, "--checkpoint", note, "--key", key, "--json"], { cwd: target.cwd });
  assert.ok(result.stdout.startsWith("["), result.stdout + result.stderr);
  return { status: result.status, problems: JSON.parse(result.stdout) as Problem[] };
}

eachStore(
  "checkpoint signs a store's tree head, which the spec checker verifies and the store keeps, and verify --checkpoint passes it and its extension",
  async (_t, target) => {
    const { json, note, verifierKey } = await checkpointed(target);
    const records = await target.store.read();
    assert.equal(json.treeSize, records.length);
    const text = specOpenNote(json.note, verifierKey);
    assert.ok(text !== null);
    assert.equal(readFileSync(note, "utf8"), json.note);
    // The store keeps the note it signed, whole.
    const stored = await evidenceLogOf(target.store as unknown as EvidenceLogOwner).latestCheckpoint();
    assert.deepEqual([stored?.treeSize, stored?.note], [records.length, json.note]);
    const { size, root } = specCheckpoint(text);
    assert.equal(size, records.length);
    // The runs were written one after the other, so the log's order is theirs.
    assert.deepEqual(root, specRoot(records.map((record) => specLeaf(Buffer.from(record.digest, "hex")))));
    assert.deepEqual(checkJson(target, note, verifierKey), { status: 0, problems: [] });
    await runInto(target.store, [2]);
    assert.deepEqual(checkJson(target, note, verifierKey), { status: 0, problems: [] });
    const text2 = leash(["verify", ...target.args, "--checkpoint", note, "--key", verifierKey], { cwd: target.cwd });
    assert.equal(text2.status, 0, text2.stdout + text2.stderr);
  },
);

const tampers: { name: string; tamper: (target: CliStore, runs: string[]) => Promise<void> }[] = [
  {
    name: "a rewritten record",
    tamper: async (target, runs) => {
      const last = (await target.store.read(runs[1])).at(-1)!;
      await rebuildStoredRun(target, runs[1]!, last.seq, (record) => ({ ...record, data: { answer: "else" } }));
    },
  },
  { name: "a cut tail", tamper: (target, runs) => cutStoredTail(target, runs[2]!, 2) },
  { name: "a removed run", tamper: (target, runs) => removeStoredRun(target, runs[0]!) },
  {
    name: "a rebuilt chain",
    tamper: (target, runs) =>
      rebuildStoredRun(target, runs[2]!, 1, (record) => ({ ...record, at: "2000-01-01T00:00:00.000Z" })),
  },
];

for (const { name, tamper } of tampers) {
  eachStore(
    `verify --checkpoint exits 1 naming the problem of ${name}, which plain verify passes`,
    async (_t, target) => {
      const { runs, note, verifierKey } = await checkpointed(target);
      await tamper(target, runs);
      // The chains and heads alone pass; a saved state left as it was may now disagree with the
      // rewritten trail (state_mismatch), which is all plain verify can say.
      const plain = leash(["verify", ...target.args, "--json"], { cwd: target.cwd });
      const found = (JSON.parse(plain.stdout) as { problems: Problem[] }).problems;
      for (const { problem } of found) assert.equal(problem, "state_mismatch", plain.stdout);
      const checked = checkJson(target, note, verifierKey);
      assert.equal(checked.status, 1);
      assert.ok(checked.problems.some(({ problem }) => /^(log_shorter|root_mismatch)$/.test(problem)));
      for (const { problem } of checked.problems) assert.match(problem, /^(log_shorter|root_mismatch|state_mismatch)$/);
      const text = leash(["verify", ...target.args, "--checkpoint", note, "--key", verifierKey], { cwd: target.cwd });
      assert.equal(text.status, 1);
      assert.match(text.stdout, /^ {2}(log_shorter|root_mismatch): /m);
      assert.equal(errorLine(text).code, "verification_failed");
    },
  );
}

eachStore(
  "prove prints, for each run of a store, a proof the spec checker verifies against the checkpoint",
  async (_t, target) => {
    const { runs, note, verifierKey } = await checkpointed(target);
    const signed = readFileSync(note, "utf8");
    for (const run of runs) {
      const result = leash(["prove", run, ...target.args, "--checkpoint", note], { cwd: target.cwd });
      assert.equal(result.status, 0, result.stderr);
      const output = JSON.parse(result.stdout) as ProveOutput;
      const last = (await target.store.read(run)).at(-1)!;
      assert.ok(specChecksProof(signed, verifierKey, output, last.digest), `the proof of ${run} checks`);
    }
    const [later] = await runInto(target.store, [1]);
    const after = leash(["prove", later!, ...target.args, "--checkpoint", note], { cwd: target.cwd });
    assert.equal(after.status, 2);
    assert.equal(errorLine(after).code, "not_in_checkpoint");
    const unknown = leash(["prove", "nope", ...target.args, "--checkpoint", note], { cwd: target.cwd });
    assert.equal(errorLine(unknown).code, "run_not_found");
  },
);
