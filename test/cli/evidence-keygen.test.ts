import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSignerKey, signNote } from "../../src/evidence/index.js";
import { specOpenNote } from "../evidence/spec-checker.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";

test("keygen writes the signer key to a file of mode 0600 and prints only the verifier key, which the spec checker accepts", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const result = leash(["keygen", "--name", "example.com/leash", "--out", "signer.key"], { cwd: folder.path });
  assert.equal(result.status, 0, result.stderr);
  const file = join(folder.path, "signer.key");
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const signerKey = readFileSync(file, "utf8").trimEnd();
  assert.match(signerKey, /^PRIVATE\+KEY\+example\.com\/leash\+[0-9a-f]{8}\+/);
  const verifierKey = result.stdout.trimEnd();
  assert.equal(verifierKey, parseSignerKey(signerKey).text);
  assert.ok(
    !result.stdout.includes("PRIVATE") && !result.stderr.includes("PRIVATE"),
    "the signer key is never printed",
  );
  assert.ok(!result.stdout.includes(signerKey.split("+").slice(4).join("+")));
  // A note signed with the file's key verifies under the printed key, by the checker written from the spec.
  const note = signNote("example.com/leash\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", signerKey);
  assert.equal(specOpenNote(note, verifierKey), "example.com/leash\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n");
});

test("keygen --json prints the name, the verifier key and the key file, and its default file is the name made safe", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const result = leash(["keygen", "--name", "example.com/leash", "--json"], { cwd: folder.path });
  assert.equal(result.status, 0, result.stderr);
  const json = JSON.parse(result.stdout) as { name: string; verifierKey: string; keyFile: string };
  assert.deepEqual(Object.keys(json).sort(), ["keyFile", "name", "verifierKey"]);
  assert.equal(json.name, "example.com/leash");
  assert.equal(json.keyFile, join(folder.path, "example.com_leash.key"));
  assert.equal(statSync(json.keyFile).mode & 0o777, 0o600);
  assert.equal(parseSignerKey(readFileSync(json.keyFile, "utf8").trimEnd()).text, json.verifierKey);
});

test("keygen refuses to overwrite a key file unless --force, which replaces it with a new key at mode 0600", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const file = join(folder.path, "signer.key");
  writeFileSync(file, "precious\n", { mode: 0o644 });
  const refused = leash(["keygen", "--name", "n", "--out", "signer.key"], { cwd: folder.path });
  assert.equal(refused.status, 2);
  assert.equal(errorLine(refused).code, "key_exists");
  assert.equal(readFileSync(file, "utf8"), "precious\n");
  const forced = leash(["keygen", "--name", "n", "--out", "signer.key", "--force"], { cwd: folder.path });
  assert.equal(forced.status, 0, forced.stderr);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(parseSignerKey(readFileSync(file, "utf8").trimEnd()).text, forced.stdout.trimEnd());
});

test("keygen refuses a key name with a space or a plus, and writes nothing", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  for (const name of ["two words", "a+b", ""]) {
    const result = leash(["keygen", "--name", name, "--out", "k.key"], { cwd: folder.path });
    assert.equal(result.status, 2);
    assert.equal(errorLine(result).code, "invalid_key");
    assert.throws(() => statSync(join(folder.path, "k.key")));
  }
});

test("--help lists keygen, checkpoint and prove, and verify's help names --checkpoint and --key", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const help = leash(["--help"], { cwd: folder.path });
  assert.equal(help.status, 0);
  for (const command of ["keygen", "checkpoint", "prove"]) assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
  const verify = leash(["verify", "--help"], { cwd: folder.path });
  assert.match(verify.stdout, /--checkpoint <file>/);
  assert.match(verify.stdout, /--key <key>/);
  assert.match(verify.stdout, /--key-file <file>/);
});
