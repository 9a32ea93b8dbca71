import { sign, verify } from "node:crypto";
import { LeashError } from "../errors/index.js";
import { parseCosignerKey, parseCosignerSigner, type CosignerKey } from "./cosigner-keys.js";
import { splitNote } from "./signed-note.js";

/** The largest timestamp a cosignature may carry: 2^63 - 1 seconds (kept as a bigint). */
const MAX_TIMESTAMP = (1n << 63n) - 1n;
const DASH = "\u2014 ";
/** key id (4) ‖ timestamp (8) ‖ Ed25519 signature (64). */
const COSIGNATURE_BYTES = 4 + 8 + 64;

/** A cosignature that verified: who made it and when (POSIX seconds). */
export interface VerifiedCosignature {
  /** The cosigner's key name. */
  name: string;
  /** The cosigner's verifier key text. */
  key: string;
  /** When the cosigner signed, in seconds since the Epoch. */
  time: number;
}

/**
 * The message an Ed25519 cosignature v1 signs: `cosignature/v1\ntime <t>\n` then the checkpoint's note
 * text (its body, final newline included, no signature line).
 *
 * @example
 * const message = cosignatureMessage("example.com/leash\n3\nAAAA...=\n", 1700000000);
 */
export function cosignatureMessage(checkpointText: string, time: number): string {
  checkTime(time);
  return `cosignature/v1\ntime ${time}\n${checkpointText}`;
}

/**
 * Cosigns a checkpoint (C2SP tlog-cosignature v1, Ed25519) and returns the signature line, newline
 * included: `— <name> base64(key id ‖ timestamp as 8 bytes big-endian ‖ signature)`. `note` is the
 * signed checkpoint (its signature lines are not cosigned) or its text alone; `time` defaults to now.
 *
 * @example
 * const line = cosignCheckpoint(note, witnessSignerKey);
 * const cosigned = addCosignatures(note, [line]);
 */
export function cosignCheckpoint(note: string, signerKey: string, options: { time?: number } = {}): string {
  const signer = parseCosignerSigner(signerKey);
  const text = note.includes("\n\n") ? splitNote(note).text : note;
  const time = options.time ?? Math.floor(Date.now() / 1000);
  const message = cosignatureMessage(text, time);
  const signature = sign(null, Buffer.from(message, "utf8"), signer.privateKey);
  const prefix = Buffer.alloc(12);
  prefix.writeUInt32BE(signer.keyId, 0);
  prefix.writeBigUInt64BE(BigInt(time), 4);
  return `${DASH}${signer.name} ${Buffer.concat([prefix, signature]).toString("base64")}\n`;
}

/**
 * Verifies a note's cosignature by one cosigner key (`<name>+<hex id>+<base64(0x04 ‖ key)>`) and
 * returns when it was made. Lines by other keys are ignored, as the spec asks. Throws `unknown_key`
 * when the note has no line with the key's name and id, `bad_signature` when that line does not
 * verify, `malformed_note` for a note that breaks the format, `invalid_key` for a bad key.
 *
 * @example
 * const { time } = verifyCosignature(cosigned, witnessVerifierKey);
 */
export function verifyCosignature(note: string, verifierKey: string): VerifiedCosignature {
  const key = parseCosignerKey(verifierKey);
  const { text, signatures } = splitNote(note);
  const mine = signatures.filter((line) => line.name === key.name && line.keyId === key.keyId);
  if (mine.length === 0) {
    throw new LeashError("unknown_key", `The note has no cosignature by ${key.name} (key ${hex(key.keyId)}).`, {
      details: { name: key.name, keyId: hex(key.keyId) },
    });
  }
  let verified: VerifiedCosignature | undefined;
  for (const line of mine) {
    const time = checkLine(text, Buffer.from(line.base64, "base64"), key);
    if (verified === undefined || time > verified.time) verified = { name: key.name, key: key.text, time };
  }
  return verified!;
}

/**
 * The note with the cosignature lines appended (a witness's `add-checkpoint` answer, split or whole);
 * a line already on the note is not added twice. Throws `malformed_note` when a line is not a note
 * signature line or the result is not a note.
 *
 * @example
 * const cosigned = addCosignatures(note, await submitToWitness(url, { note, oldSize, proof }));
 */
export function addCosignatures(note: string, lines: readonly string[]): string {
  const present = new Set(splitNote(note).signatures.map((line) => `${line.name} ${line.base64}`));
  let result = note;
  for (const part of lines.flatMap((line) => line.split("\n")).filter((line) => line !== "")) {
    if (!part.startsWith(DASH)) {
      throw new LeashError("malformed_note", "Expected each cosignature line to start with an em dash and a space.");
    }
    if (present.has(part.slice(DASH.length))) continue;
    present.add(part.slice(DASH.length));
    result += `${part}\n`;
  }
  splitNote(result);
  return result;
}

function checkLine(text: string, bytes: Buffer, key: CosignerKey): number {
  const bad = (why: string): LeashError =>
    new LeashError("bad_signature", `The cosignature by ${key.name} (key ${hex(key.keyId)}) ${why}.`, {
      details: { name: key.name, keyId: hex(key.keyId) },
    });
  if (bytes.length !== COSIGNATURE_BYTES) throw bad(`is ${bytes.length} bytes, not ${COSIGNATURE_BYTES}`);
  const timestamp = bytes.readBigUInt64BE(4);
  if (timestamp > MAX_TIMESTAMP || timestamp > BigInt(Number.MAX_SAFE_INTEGER)) throw bad("has a timestamp too large");
  const time = Number(timestamp);
  const message = Buffer.from(cosignatureMessage(text, time), "utf8");
  if (!verify(null, message, key.publicKey, bytes.subarray(12))) throw bad("does not verify");
  return time;
}

function checkTime(time: number): void {
  if (!Number.isSafeInteger(time) || time < 0) {
    throw new LeashError("invalid_option", "Expected a cosignature's `time` to be whole seconds since the Epoch.");
  }
}

function hex(keyId: number): string {
  return keyId.toString(16).padStart(8, "0");
}
