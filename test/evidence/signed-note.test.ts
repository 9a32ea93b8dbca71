import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey } from "node:crypto";
import { isLeashError, keygen, type ErrorCode } from "../../src/index.js";
import { openNote, signNote } from "../../src/evidence/index.js";
import { parseSignerKey, parseVerifierKey } from "../../src/evidence/note-keys.js";
import { MAX_NOTE_SIGNATURES } from "../../src/evidence/signed-note.js";
import { specOpenNote } from "./spec-checker.js";

// Published vectors: golang.org/x/mod sumdb/note note_test.go (PeterNeumann's and EnochRoot's keys,
// the signed text and both signatures) and the example of c2sp.org/signed-note (example.com/foo).
const peterSigner = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const peterVerifier = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const enochVerifier = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const peterSig =
  "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const enochSig =
  "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";
const c2spKey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const c2spNote =
  "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

function assertCode(call: () => unknown, code: ErrorCode, label = ""): void {
  assert.throws(call, (error) => isLeashError(error, code), `${label} should throw ${code}`);
}

test("the published signer key signs the published text byte for byte (Ed25519 is deterministic)", () => {
  assert.equal(signNote(text, peterSigner), `${text}\n${peterSig}`);
  assert.equal(parseSignerKey(peterSigner).text, peterVerifier);
});

test("the published notes open with their verifier keys; a signature by a key not given is ignored", () => {
  assert.equal(openNote(c2spNote, [c2spKey]).text, "This is an example message.\n");
  const both = `${text}\n${peterSig}${enochSig}`;
  const peterOnly = openNote(both, [peterVerifier]);
  assert.equal(peterOnly.text, text);
  assert.deepEqual(
    peterOnly.verified.map((signature) => signature.name),
    ["PeterNeumann"],
  );
  assert.deepEqual(
    peterOnly.unverified.map((signature) => signature.name),
    ["EnochRoot"],
  );
  assert.equal(openNote(both, [peterVerifier, enochVerifier]).verified.length, 2);
  // A key given twice, or a signature line repeated, counts once.
  assert.equal(openNote(`${text}\n${peterSig}${peterSig}`, [peterVerifier, peterVerifier]).verified.length, 1);
});

test("a note with no signature by a key given is unknown_key; a known key's bad signature is bad_signature", () => {
  assertCode(() => openNote(`${text}\n${peterSig}${enochSig}`, []), "unknown_key");
  assertCode(() => openNote(`${text}\n${enochSig}`, [peterVerifier]), "unknown_key");
  // Another key under the same name: a different key id, so not the known key.
  const other = keygen("PeterNeumann");
  assertCode(() => openNote(signNote(text, other.signerKey), [peterVerifier]), "unknown_key");
  assertCode(
    () => openNote(`${text}\n${peterSig.slice(0, 60)}ABCD${peterSig.slice(60)}`, [peterVerifier]),
    "bad_signature",
  );
  assertCode(() => openNote(`${text.replace("problem", "Problem")}\n${peterSig}`, [peterVerifier]), "bad_signature");
});

test("malformed notes are refused with malformed_note (the Go package's bad messages, and more)", () => {
  const bad = [
    text,
    `${text}\n`,
    `${text}\n${peterSig.slice(0, -1)}`,
    `\u0001${text}\n${peterSig}`,
    `\uD800${text}\n${peterSig}`,
    `${text}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=`,
    `${text}\n${peterSig}Unexpected line.\n`,
    `${text}\n— PeterNeumann not-base64!\n`,
    `${text}\n— PeterNeumann AAAA\n`,
    `${text}\n${peterSig.repeat(MAX_NOTE_SIGNATURES + 1)}`,
    `${text}\n- PeterNeumann ${peterSig.slice(15)}`,
  ];
  bad.forEach((note, index) =>
    assertCode(() => openNote(note, [peterVerifier]), "malformed_note", `bad note ${index}`),
  );
  for (const badText of ["", "no newline", "a\u0007b\n", "\uDC00\n"]) {
    assertCode(() => signNote(badText, peterSigner), "malformed_note", JSON.stringify(badText));
  }
});

test("keygen makes keys in the API's form that the checker, written from the spec, verifies with node:crypto", () => {
  const name = "example.com/leash";
  const { signerKey, verifierKey } = keygen(name);
  const [vName, vId, ...vRest] = verifierKey.split("+");
  assert.equal(vName, name);
  assert.match(vId!, /^[0-9a-f]{8}$/);
  const material = Buffer.from(vRest.join("+"), "base64");
  assert.equal(material.length, 33);
  assert.equal(material[0], 1);
  const id = createHash("sha256").update(`${name}\n`).update(Buffer.of(1)).update(material.subarray(1)).digest();
  assert.equal(id.subarray(0, 4).toString("hex"), vId);
  assert.ok(signerKey.startsWith(`PRIVATE+KEY+${name}+${vId}+`));
  assert.equal(Buffer.from(signerKey.split("+").slice(4).join("+"), "base64").length, 33);
  const note = signNote("hello\n", signerKey);
  assert.equal(specOpenNote(note, verifierKey), "hello\n");
  assert.equal(specOpenNote(note, keygen(name).verifierKey), null);
  assert.equal(specOpenNote(c2spNote, c2spKey), "This is an example message.\n");
  assert.ok(
    createPublicKey({
      key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), material.subarray(1)]),
      format: "der",
      type: "spki",
    }),
  );
});

test("key names must be non-empty with no plus, no Unicode space and no control character: invalid_key", () => {
  for (const name of [
    "",
    "a+b",
    "a b",
    "a\tb",
    "a\u00a0b",
    "a\u3000b",
    "a\u2028b",
    "a\u0085b",
    "a\nb",
    "a\u0000b",
    7,
  ]) {
    assertCode(() => keygen(name as string), "invalid_key", JSON.stringify(name));
  }
  assert.ok(keygen("example.com/log-42_x").verifierKey.startsWith("example.com/log-42_x+"));
});

test("mangled keys are refused with invalid_key: every cut, every changed character (as the Go package checks)", () => {
  for (const [key, parse] of [
    [peterVerifier, parseVerifierKey],
    [peterSigner, parseSignerKey],
  ] as const) {
    assert.doesNotThrow(() => parse(key));
    for (let start = 0; start < key.length; start++) {
      for (let end = start + 1; end <= key.length; end++) {
        if (start === 0 && end === key.length) continue;
        assertCode(() => parse(key.slice(start, end)), "invalid_key", key.slice(start, end));
      }
    }
    for (let position = 0; position < key.length; position++) {
      const changed =
        key.slice(0, position) + String.fromCharCode(key.charCodeAt(position) + 1) + key.slice(position + 1);
      assertCode(() => parse(changed), "invalid_key", changed);
    }
  }
  // A wrong-length key and an unknown algorithm, each with its key id adjusted (the Go package's vectors).
  assertCode(
    () => parseVerifierKey("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="),
    "invalid_key",
  );
  assertCode(
    () => parseVerifierKey("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"),
    "invalid_key",
  );
  assertCode(() => parseVerifierKey(peterSigner), "invalid_key");
  assertCode(() => parseSignerKey(peterVerifier), "invalid_key");
  assertCode(() => openNote(c2spNote, ["not a key"]), "invalid_key");
});

test("an error about a signer key never carries the key's text", () => {
  const secret = peterSigner.replace("c74f20a3", "c74f20a4");
  try {
    parseSignerKey(secret);
    assert.fail("expected a throw");
  } catch (error) {
    assert.ok(isLeashError(error, "invalid_key"));
    assert.ok(!JSON.stringify({ message: error.message, details: error.details }).includes("AYEKFALV"));
  }
});

test("a key name is the spec's: U+FEFF and U+180E are allowed, every Unicode White_Space character and `+` refused", () => {
  for (const name of ["w\uFEFFx", "w\u180Ex", "lög.example/ключ"]) {
    const pair = keygen(name);
    assert.equal(openNote(signNote("hello\n", pair.signerKey), [pair.verifierKey]).text, "hello\n");
  }
  const whiteSpace = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
  for (let code = 0x2000; code <= 0x200a; code++) whiteSpace.push(code);
  for (const code of whiteSpace) {
    assert.throws(
      () => keygen(`a${String.fromCodePoint(code)}b`),
      (error: unknown) => isLeashError(error, "invalid_key"),
      code.toString(16),
    );
  }
  assert.throws(
    () => keygen("a+b"),
    (error: unknown) => isLeashError(error, "invalid_key"),
  );
});

test("openNote ignores a signature line by a key not given, whatever its name (a space, U+FEFF, a `+`)", () => {
  const pair = keygen("example.com/leash");
  const note = signNote("hello\n", pair.signerKey);
  const base64 = Buffer.alloc(68, 7).toString("base64");
  for (const name of ["w\uFEFFitness", "odd name", "a+b", "w\u2003x"]) {
    const opened = openNote(`${note}\u2014 ${name} ${base64}\n`, [pair.verifierKey]);
    assert.equal(opened.text, "hello\n", name);
    assert.equal(opened.unverified.length, 1, name);
  }
  assert.throws(
    () => openNote(`${note}\u2014 ${base64}\n`, [pair.verifierKey]),
    (error: unknown) => isLeashError(error, "malformed_note"),
  );
});
