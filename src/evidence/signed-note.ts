import { sign, verify } from "node:crypto";
import { LeashError } from "../errors/index.js";
import { hasControlCharacter, parseSignerKey, parseVerifierKey, type VerifierKey } from "./note-keys.js";

/**
 * The most signature lines a note may carry. C2SP signed-note asks verifiers to accept at least 16 and
 * to bound them; 100 leaves room for many witnesses and keeps a hostile note's cost small.
 */
export const MAX_NOTE_SIGNATURES = 100;

/** The largest note accepted, in UTF-8 bytes (a checkpoint is a few hundred). */
export const MAX_NOTE_BYTES = 1 << 20;

/** One signature line of a note: `— <name> <base64(key id ‖ signature)>`. */
export interface NoteSignature {
  name: string;
  /** The key id: the first 4 bytes of the signature's bytes, big-endian. */
  keyId: number;
  /** The line's base64 text, key id included. */
  base64: string;
}

/** A note whose signature by at least one known key verified. */
export interface OpenedNote {
  /** The signed text, final newline included. */
  text: string;
  /** The signatures by known keys, each verified (one per key). */
  verified: NoteSignature[];
  /** The signatures by keys not given, ignored as the spec asks (a witness's cosignature, an old key). */
  unverified: NoteSignature[];
}

const DASH = "\u2014 ";

/**
 * Signs a note's text with a signer key and returns the note: the text, a blank line and one
 * signature line (Ed25519 over the text's UTF-8 bytes). The text must end in a newline and hold no
 * control character other than newline (`malformed_note`).
 *
 * @example
 * const note = signNote("example.com/leash\n3\nAAAA...=\n", signerKey);
 */
export function signNote(text: string, signerKey: string): string {
  checkText(text);
  const signer = parseSignerKey(signerKey);
  const signature = sign(null, Buffer.from(text, "utf8"), signer.privateKey);
  const id = Buffer.alloc(4);
  id.writeUInt32BE(signer.keyId);
  return `${text}\n${DASH}${signer.name} ${Buffer.concat([id, signature]).toString("base64")}\n`;
}

/**
 * Opens a signed note with the verifier keys the caller trusts, following C2SP signed-note: a
 * signature by a key not given (name and key id) is ignored; a signature by a given key that does not
 * verify throws `bad_signature`; a note with no signature by a given key throws `unknown_key`; a note
 * that breaks the format throws `malformed_note`; a verifier key that does not parse throws `invalid_key`.
 *
 * @example
 * const { text } = openNote(note, [verifierKey]);
 */
export function openNote(note: string, verifierKeys: readonly string[]): OpenedNote {
  return openNoteWith(note, verifierKeys.map(parseVerifierKey));
}

/** {@link openNote} with keys already parsed. */
export function openNoteWith(note: string, keys: readonly VerifierKey[]): OpenedNote {
  const known = indexKeys(keys);
  const { text, signatures } = splitNote(note);
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seen = new Set<string>();
  const data = Buffer.from(text, "utf8");
  for (const signature of signatures) {
    const key = known.get(`${signature.name}+${signature.keyId}`);
    if (key === undefined) {
      unverified.push(signature);
      continue;
    }
    const bytes = Buffer.from(signature.base64, "base64").subarray(4);
    if (bytes.length !== 64 || !verify(null, data, key.publicKey, bytes)) {
      throw new LeashError(
        "bad_signature",
        `The note's signature by ${key.name} (key ${hex(key.keyId)}) does not verify.`,
        {
          details: { name: key.name, keyId: hex(key.keyId) },
        },
      );
    }
    if (!seen.has(key.text)) {
      seen.add(key.text);
      verified.push(signature);
    }
  }
  if (verified.length === 0) {
    const names = signatures.map((signature) => `${signature.name}+${hex(signature.keyId)}`).join(", ");
    throw new LeashError("unknown_key", `The note has no signature by a key given (it is signed by ${names}).`, {
      details: { signers: signatures.map((signature) => signature.name) },
    });
  }
  return { text, verified, unverified };
}

/** Splits a note at its last blank line into its text and its signature lines, checking their form. */
export function splitNote(note: string): { text: string; signatures: NoteSignature[] } {
  if (typeof note !== "string") throw malformed(`it is a ${typeof note}, not a string`);
  if (Buffer.byteLength(note, "utf8") > MAX_NOTE_BYTES) throw malformed(`it is longer than ${MAX_NOTE_BYTES} bytes`);
  checkCharacters(note);
  const split = note.lastIndexOf("\n\n");
  if (split === -1) throw malformed("it has no blank line before its signatures");
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2);
  if (!lines.endsWith("\n")) throw malformed("its last signature line does not end in a newline");
  const signatures = lines.slice(0, -1).split("\n").map(parseSignatureLine);
  if (signatures.length > MAX_NOTE_SIGNATURES) throw malformed(`it has more than ${MAX_NOTE_SIGNATURES} signatures`);
  return { text, signatures };
}

function parseSignatureLine(line: string, position: number): NoteSignature {
  const where = `signature line ${position + 1}`;
  if (!line.startsWith(DASH)) throw malformed(`${where} does not start with an em dash and a space`);
  const rest = line.slice(DASH.length);
  // The signature is after the last space. A name that is not a key name (a space, a `+`) is not a
  // malformed note: no key given can have it, so its line is one of the lines ignored.
  const space = rest.lastIndexOf(" ");
  if (space === -1) throw malformed(`${where} has no space between the key name and the signature`);
  const name = rest.slice(0, space);
  const base64 = rest.slice(space + 1);
  if (name.length === 0) throw malformed(`${where} has an empty key name`);
  const bytes = Buffer.from(base64, "base64");
  if (bytes.toString("base64") !== base64 || bytes.length <= 4) {
    throw malformed(`${where} does not hold the base64 of a key id and a signature`);
  }
  return { name, keyId: bytes.readUInt32BE(0), base64 };
}

function checkText(text: unknown): asserts text is string {
  if (typeof text !== "string" || text.length === 0 || !text.endsWith("\n")) {
    throw malformed("its text does not end in a newline");
  }
  if (Buffer.byteLength(text, "utf8") > MAX_NOTE_BYTES)
    throw malformed(`its text is longer than ${MAX_NOTE_BYTES} bytes`);
  checkCharacters(text);
}

function checkCharacters(value: string): void {
  // A note must be valid UTF-8 (no lone surrogate in a string) with no control character but newline.
  if (!value.isWellFormed()) throw malformed("it is not valid UTF-8");
  if (hasControlCharacter(value, true)) throw malformed("it holds a control character other than newline");
}

function indexKeys(keys: readonly VerifierKey[]): Map<string, VerifierKey> {
  const known = new Map<string, VerifierKey>();
  for (const key of keys) {
    const id = `${key.name}+${key.keyId}`;
    const other = known.get(id);
    if (other !== undefined && other.text !== key.text) {
      throw new LeashError(
        "invalid_key",
        `Two verifier keys given share the name ${key.name} and key id ${hex(key.keyId)}.`,
      );
    }
    known.set(id, key);
  }
  return known;
}

function malformed(why: string): LeashError {
  return new LeashError("malformed_note", `The signed note is malformed: ${why}.`);
}

function hex(keyId: number): string {
  return keyId.toString(16).padStart(8, "0");
}
