import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { leash, root, tempFolder } from "./cli-helpers.js";
import { jsonlTrail, makeKeys, trailRecords, type ProveOutput } from "./evidence-helpers.js";

/** The guide's checker, exactly as the page shows it: the block fenced as ```js check-proof.mjs. */
function guideChecker(): string {
  const page = readFileSync(join(root, "docs", "guide", "14-evidence.md"), "utf8");
  const match = /^```js check-proof\.mjs\n([\s\S]*?)^```$/m.exec(page);
  assert.ok(match !== null, "the guide holds the checker block");
  return match[1]!;
}

function check(cwd: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["check-proof.mjs", ...args], { cwd, encoding: "utf8", timeout: 60_000 });
}

test("the guide's no-library checker accepts leash prove's output against the checkpoint, and rejects a changed proof, another record and another key", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, runs } = await jsonlTrail(folder.path, [2, 1, 3, 0, 1]);
  const { keyFile, verifierKey } = makeKeys(folder.path);
  const signed = leash(
    ["checkpoint", path, "--key-file", keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
    {
      cwd: folder.path,
    },
  );
  assert.equal(signed.status, 0, signed.stderr);
  writeFileSync(join(folder.path, "check-proof.mjs"), guideChecker());
  const records = trailRecords(path);
  for (const run of runs) {
    const proved = leash(["prove", run, path, "--checkpoint", "cp.note"], { cwd: folder.path });
    assert.equal(proved.status, 0, proved.stderr);
    writeFileSync(join(folder.path, "proof.json"), proved.stdout);
    const digest = records.filter((record) => record.run === run).at(-1)!.digest;
    const ok = check(folder.path, ["cp.note", "proof.json", verifierKey, digest]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(
      ok.stdout,
      new RegExp(`^proved: leaf \\d+ is in example\\.com/leash's signed tree of ${records.length} records`),
    );
    assert.equal(check(folder.path, ["cp.note", "proof.json", verifierKey]).status, 0);

    const other = records.find((record) => record.digest !== digest)!.digest;
    const wrongRecord = check(folder.path, ["cp.note", "proof.json", verifierKey, other]);
    assert.equal(wrongRecord.status, 1);
    assert.match(wrongRecord.stderr, /not proved: the proof is for another record/);

    const output = JSON.parse(proved.stdout) as ProveOutput;
    if (output.proof.length > 0) {
      const changed = Buffer.from(output.proof[0]!, "base64");
      changed[0]! ^= 1;
      writeFileSync(
        join(folder.path, "bad.json"),
        JSON.stringify({ ...output, proof: [changed.toString("base64"), ...output.proof.slice(1)] }),
      );
      const bad = check(folder.path, ["cp.note", "bad.json", verifierKey]);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /not proved: the proof does not lead to the signed root/);
    }
  }
  const stranger = leash(["keygen", "--name", "example.com/leash", "--out", "stranger.key"], { cwd: folder.path });
  const wrongKey = check(folder.path, ["cp.note", "proof.json", stranger.stdout.trim()]);
  assert.equal(wrongKey.status, 1);
  assert.match(wrongKey.stderr, /not proved: the checkpoint has no valid signature by this key/);
});
