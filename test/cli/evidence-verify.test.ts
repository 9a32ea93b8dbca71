import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { specCheckpoint, specOpenNote, specRoot, specLeaf } from "../evidence/spec-checker.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";
import { jsonlTrail, makeKeys, rebuildFrom, trailRecords, writeTrail } from "./evidence-helpers.js";
import type { AuditRecord } from "../../src/index.js";
import { JsonlAuditSink } from "../../src/index.js";
import { runInto } from "./evidence-helpers.js";

interface Problem {
  problem: string;
  message: string;
  run?: string;
  seq?: number;
}

/** A trail of three runs, keys, and a checkpoint of it written by the bin to cp.note. */
async function checkpointed(folder: string) {
  const trail = await jsonlTrail(folder, [1, 2, 3]);
  const keys = makeKeys(folder);
  const signed = leash(
    ["checkpoint", trail.path, "--key-file", keys.keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
    { cwd: folder },
  );
  assert.equal(signed.status, 0, signed.stderr);
  assert.match(
    signed.stdout,
    /^Signed the tree of \d+ records of example\.com\/leash \(root [A-Za-z0-9+/=]{44}\) into cp\.note\.\n$/,
  );
  return { ...trail, ...keys, note: join(folder, "cp.note") };
}

function verifyJson(
  folder: string,
  path: string,
  note: string,
  key: string,
): { status: number | null; problems: Problem[] } {
  const result = leash(["verify", path, "--checkpoint", note, "--key", key, "--json"], { cwd: folder });
  return { status: result.status, problems: JSON.parse(result.stdout) as Problem[] };
}

test("checkpoint signs a JSONL trail's tree head, which the spec checker verifies against the trail's records", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, keyFile, verifierKey } = { ...(await jsonlTrail(folder.path, [1, 2])), ...makeKeys(folder.path) };
  const result = leash(["checkpoint", path, "--key-file", keyFile, "--origin", "example.com/leash", "--json"], {
    cwd: folder.path,
  });
  assert.equal(result.status, 0, result.stderr);
  const json = JSON.parse(result.stdout) as { origin: string; treeSize: number; rootHash: string; note: string };
  assert.deepEqual(Object.keys(json).sort(), ["note", "origin", "rootHash", "treeSize"]);
  const records = trailRecords(path);
  const root = specRoot(records.map((record) => specLeaf(Buffer.from(record.digest, "hex"))));
  const text = specOpenNote(json.note, verifierKey);
  assert.ok(text !== null, "the spec checker verifies the signature");
  assert.deepEqual(specCheckpoint(text), { origin: "example.com/leash", size: records.length, root });
  assert.deepEqual(
    [json.origin, json.treeSize, json.rootHash],
    ["example.com/leash", records.length, root.toString("base64")],
  );
  // Without --out or --json, the note itself is printed, byte for byte.
  const plain = leash(["checkpoint", path, "--key-file", keyFile, "--origin", "example.com/leash"], {
    cwd: folder.path,
  });
  assert.equal(specOpenNote(plain.stdout, verifierKey), text);
});

test("verify --checkpoint passes a trail that holds the checkpoint, and one that extends it", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, note, verifierKey } = await checkpointed(folder.path);
  const text = leash(["verify", path, "--checkpoint", note, "--key", verifierKey], { cwd: folder.path });
  assert.equal(text.status, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /against the checkpoint of example\.com\/leash at \d+ records/);
  assert.deepEqual(verifyJson(folder.path, path, note, verifierKey), { status: 0, problems: [] });
  const sink = new JsonlAuditSink(path);
  await runInto(sink, [2]);
  await sink.close();
  assert.deepEqual(verifyJson(folder.path, path, note, verifierKey), { status: 0, problems: [] });
  writeFileSync(join(folder.path, "verifier.pub"), `${verifierKey}\n`);
  const fromFile = leash(["verify", path, "--checkpoint", note, "--key-file", "verifier.pub"], { cwd: folder.path });
  assert.equal(fromFile.status, 0, fromFile.stdout + fromFile.stderr);
});

/** Each way of rewriting a trail that its chains alone cannot show, and the problem the checkpoint names. */
const tampers: {
  name: string;
  problem: string;
  tamper: (records: AuditRecord[], runs: string[]) => AuditRecord[] | Promise<AuditRecord[]>;
}[] = [
  {
    name: "a rewritten record (a run's last, re-digested)",
    problem: "root_mismatch",
    tamper: (records, runs) => {
      const last = records.filter((record) => record.run === runs[1]).at(-1)!;
      return rebuildFrom(records, last.run, last.seq, (record) => ({ ...record, data: { answer: "something else" } }));
    },
  },
  {
    name: "a cut tail",
    problem: "log_shorter",
    tamper: (records) => records.slice(0, -2),
  },
  {
    name: "a removed run",
    problem: "log_shorter",
    tamper: (records, runs) => records.filter((record) => record.run !== runs[0]),
  },
  {
    name: "a removed run, its place filled by later records",
    problem: "root_mismatch",
    tamper: (records, runs) => {
      const kept = records.filter((record) => record.run !== runs[0]);
      const filler = records.filter((record) => record.run === runs[2]).map((record) => ({ ...record, run: "filler" }));
      return [...kept, ...rebuildFrom(filler, "filler", 0, (record) => record)];
    },
  },
  {
    name: "a rebuilt chain",
    problem: "root_mismatch",
    tamper: (records, runs) =>
      rebuildFrom(records, runs[2]!, 1, (record) => ({ ...record, at: "2000-01-01T00:00:00.000Z" })),
  },
];

for (const { name, problem, tamper } of tampers) {
  test(`verify --checkpoint exits 1 naming ${problem} for ${name}, which plain verify passes (jsonl)`, async (t) => {
    const folder = tempFolder();
    t.after(folder.remove);
    const { path, runs, note, verifierKey } = await checkpointed(folder.path);
    writeTrail(path, await tamper(trailRecords(path), runs));
    const plain = leash(["verify", path], { cwd: folder.path });
    assert.equal(plain.status, 0, `the chains alone pass: ${plain.stdout}`);
    const checked = verifyJson(folder.path, path, note, verifierKey);
    assert.equal(checked.status, 1);
    assert.deepEqual(
      checked.problems.map((found) => found.problem),
      [problem],
    );
    const text = leash(["verify", path, "--checkpoint", note, "--key", verifierKey], { cwd: folder.path });
    assert.equal(text.status, 1);
    assert.match(text.stdout, new RegExp(`^  ${problem}: `, "m"));
    assert.equal(errorLine(text).code, "verification_failed");
  });
}

test("verify --checkpoint names a broken chain with its run and seq, beside the checkpoint's own problem", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, note, verifierKey } = await checkpointed(folder.path);
  const records = trailRecords(path);
  records[1] = { ...records[1]!, at: "2000-01-01T00:00:00.000Z" };
  writeTrail(path, records);
  const checked = verifyJson(folder.path, path, note, verifierKey);
  assert.equal(checked.status, 1);
  assert.deepEqual(
    checked.problems.map(({ problem, run, seq }) => ({ problem, run, seq })),
    [{ problem: "changed", run: records[1].run, seq: records[1].seq }],
  );
});

test("verify --checkpoint exits 1 for a note signed by another key, a changed signature or a changed size", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, note, verifierKey } = await checkpointed(folder.path);
  const other = leash(["keygen", "--name", "example.com/leash", "--out", "other.key"], {
    cwd: folder.path,
  }).stdout.trim();
  assert.deepEqual(
    verifyJson(folder.path, path, note, other).problems.map((found) => found.problem),
    ["unknown_key"],
  );
  const signed = readFileSync(note, "utf8");
  const signature = /^\u2014 \S+ (\S+)$/mu.exec(signed)![1]!;
  const bytes = Buffer.from(signature, "base64");
  bytes[10]! ^= 1;
  writeFileSync(join(folder.path, "bad-sig.note"), signed.replace(signature, bytes.toString("base64")));
  assert.deepEqual(
    verifyJson(folder.path, path, "bad-sig.note", verifierKey).problems.map((found) => found.problem),
    ["bad_signature"],
  );
  const size = /^\d+$/m.exec(signed)![0];
  writeFileSync(join(folder.path, "bad-size.note"), signed.replace(`\n${size}\n`, `\n${Number(size) - 1}\n`));
  assert.deepEqual(
    verifyJson(folder.path, path, "bad-size.note", verifierKey).problems.map((found) => found.problem),
    ["bad_signature"],
  );
  writeFileSync(join(folder.path, "garbage.note"), "not a checkpoint at all\n");
  const garbage = verifyJson(folder.path, path, "garbage.note", verifierKey);
  assert.equal(garbage.status, 1);
  assert.deepEqual(
    garbage.problems.map((found) => found.problem),
    ["malformed_checkpoint"],
  );
});

test("verify --checkpoint refuses a key that is not a verifier key, a signer key, and a missing file, with codes", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, note, verifierKey, keyFile } = await checkpointed(folder.path);
  const run = (args: string[]) => leash(["verify", path, ...args], { cwd: folder.path });
  const cases: [string[], string][] = [
    [["--checkpoint", note, "--key", "not-a-key"], "invalid_key"],
    [["--checkpoint", note, "--key", readFileSync(keyFile, "utf8").trim()], "invalid_option"],
    [["--checkpoint", note, "--key-file", keyFile], "invalid_option"],
    [["--checkpoint", note], "invalid_option"],
    [["--checkpoint", note, "--key", verifierKey, "--key-file", keyFile], "invalid_option"],
    [["--checkpoint", "missing.note", "--key", verifierKey], "checkpoint_not_found"],
    [["--checkpoint", note, "--key-file", "missing.pub"], "key_not_found"],
    [["--checkpoint", note, "--key", verifierKey, "--head", "1:00"], "invalid_option"],
    [["--key", verifierKey], "invalid_option"],
  ];
  for (const [args, code] of cases) {
    const result = run(args);
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(errorLine(result).code, code, args.join(" "));
    assert.ok(!result.stderr.includes("PRIVATE+KEY"), "a signer key is never echoed");
  }
  assert.match(errorLine(run(cases[1]![0])).message, /process list/);
});

test("checkpoint takes a signer key from a file only, and refuses a trail whose chains do not verify", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { path, keyFile } = await checkpointed(folder.path);
  const signer = readFileSync(keyFile, "utf8").trim();
  const onCommandLine = leash(["checkpoint", path, "--key", signer, "--origin", "o"], { cwd: folder.path });
  assert.equal(onCommandLine.status, 2);
  assert.equal(errorLine(onCommandLine).code, "invalid_option");
  assert.match(errorLine(onCommandLine).message, /visible .* in the process list/);
  assert.ok(!onCommandLine.stderr.includes(signer.slice(12)));
  const missing = leash(["checkpoint", path, "--key-file", "nope.key", "--origin", "o"], { cwd: folder.path });
  assert.equal(errorLine(missing).code, "key_not_found");
  writeFileSync(
    join(folder.path, "verifier-as-signer.key"),
    `${makeKeys(folder.path, "other", "other.key").verifierKey}\n`,
  );
  const notSigner = leash(["checkpoint", path, "--key-file", "verifier-as-signer.key", "--origin", "o"], {
    cwd: folder.path,
  });
  assert.equal(errorLine(notSigner).code, "invalid_key");
  const records = trailRecords(path);
  records[2] = { ...records[2]!, event: "rewritten" };
  writeTrail(path, records);
  const broken = leash(["checkpoint", path, "--key-file", keyFile, "--origin", "o", "--out", "new.note"], {
    cwd: folder.path,
  });
  assert.equal(broken.status, 2);
  assert.equal(errorLine(broken).code, "audit_invalid");
  assert.throws(() => readFileSync(join(folder.path, "new.note")));
});
