import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isLeashError, keygen } from "../../src/index.js";
import {
  addCosignatures,
  cosignCheckpoint,
  cosignerKeygen,
  signNote,
  verifyCosignature,
} from "../../src/evidence/index.js";
import { specVerifyCosignature } from "./spec-cosignature.js";

const text = `example.com/leash\n3\n${Buffer.alloc(32, 7).toString("base64")}\n`;

test("cosigner keys carry the cosignature key id rule: SHA-256(name, newline, 0x04, public key)", () => {
  const { signerKey, verifierKey } = cosignerKeygen("witness.example/w1");
  const [name, id, material] = verifierKey.split("+", 3) as [string, string, string];
  const bytes = Buffer.from(verifierKey.slice(name.length + id.length + 2), "base64");
  assert.equal(bytes[0], 0x04);
  assert.ok(material.length > 0);
  const expected = createHash("sha256")
    .update(`${name}\n`)
    .update(Buffer.of(4))
    .update(bytes.subarray(1))
    .digest()
    .subarray(0, 4);
  assert.equal(id, expected.toString("hex"));
  assert.ok(signerKey.startsWith(`PRIVATE+KEY+${name}+${id}+`));
});

test("a cosignature verifies by leash and by the spec checker, at the time it carries, and not over another checkpoint", () => {
  const { signerKey, verifierKey } = cosignerKeygen("witness.example/w1");
  const log = keygen("example.com/leash");
  const note = signNote(text, log.signerKey);
  const line = cosignCheckpoint(note, signerKey, { time: 1_700_000_000 });
  const cosigned = addCosignatures(note, [line]);
  assert.deepEqual(verifyCosignature(cosigned, verifierKey), {
    name: "witness.example/w1",
    key: verifierKey,
    time: 1_700_000_000,
  });
  assert.equal(specVerifyCosignature(cosigned, verifierKey), 1_700_000_000);
  const bytes = Buffer.from(line.trim().split(" ")[2]!, "base64");
  assert.equal(bytes.length, 76);
  assert.equal(bytes.readBigUInt64BE(4), 1_700_000_000n);
  const other = signNote(text.replace("\n3\n", "\n4\n"), log.signerKey);
  assert.throws(
    () => verifyCosignature(addCosignatures(other, [line]), verifierKey),
    (error: unknown) => isLeashError(error, "bad_signature"),
  );
});

test("a cosignature with its timestamp changed does not verify, and a note without one is unknown_key", () => {
  const { signerKey, verifierKey } = cosignerKeygen("witness.example/w1");
  const note = signNote(text, keygen("example.com/leash").signerKey);
  const bytes = Buffer.from(cosignCheckpoint(note, signerKey, { time: 5 }).trim().split(" ")[2]!, "base64");
  bytes.writeBigUInt64BE(6n, 4);
  const forged = addCosignatures(note, [`\u2014 witness.example/w1 ${bytes.toString("base64")}`]);
  assert.throws(
    () => verifyCosignature(forged, verifierKey),
    (error: unknown) => isLeashError(error, "bad_signature"),
  );
  assert.equal(specVerifyCosignature(forged, verifierKey), null);
  assert.throws(
    () => verifyCosignature(note, verifierKey),
    (error: unknown) => isLeashError(error, "unknown_key"),
  );
});

test("a keygen signer key cosigns under its cosignature key id; a plain note verifier key is not a cosigner key", () => {
  const plain = keygen("witness.example/w2");
  const line = cosignCheckpoint(text, plain.signerKey, { time: 9 });
  const note = addCosignatures(signNote(text, keygen("example.com/leash").signerKey), [line]);
  assert.throws(
    () => verifyCosignature(note, plain.verifierKey),
    (error: unknown) => isLeashError(error, "invalid_key"),
  );
  const raw = Buffer.from(plain.verifierKey.split("+").slice(2).join("+"), "base64").subarray(1);
  const id = createHash("sha256").update("witness.example/w2\n").update(Buffer.of(4)).update(raw).digest();
  const cosignerKey = `witness.example/w2+${id.subarray(0, 4).toString("hex")}+${Buffer.concat([Buffer.of(4), raw]).toString("base64")}`;
  assert.equal(verifyCosignature(note, cosignerKey).time, 9);
  assert.equal(specVerifyCosignature(note, cosignerKey), 9);
});

test("addCosignatures refuses a line that is not a note signature line", () => {
  const note = signNote(text, keygen("example.com/leash").signerKey);
  assert.throws(
    () => addCosignatures(note, ["409"]),
    (error: unknown) => isLeashError(error, "malformed_note"),
  );
  assert.throws(
    () => addCosignatures(note, ["\u2014 name !!!"]),
    (error: unknown) => isLeashError(error, "malformed_note"),
  );
});
