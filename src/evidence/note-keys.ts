import { createPrivateKey, createPublicKey, generateKeyPairSync, hash, type KeyObject } from "node:crypto";
import { LeashError } from "../errors/index.js";

/** The signature type byte of Ed25519 in C2SP signed-note. */
const ED25519 = 0x01;
// The DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS #8) or public key (SPKI), RFC 8410.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const SIGNER_PREFIX = "PRIVATE+KEY+";

/** A signed-note verifier key, parsed: its name, key id and Ed25519 public key. */
export interface VerifierKey {
  name: string;
  /** The key id: the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key), as a uint32. */
  keyId: number;
  publicKey: KeyObject;
  /** The key's text, `<name>+<hex key id>+<base64(0x01 ‖ public key)>`. */
  text: string;
}

/** A signed-note signer key, parsed: a {@link VerifierKey} and the private key. */
export interface SignerKey extends VerifierKey {
  privateKey: KeyObject;
}

/** Both keys of a new pair, as C2SP signed-note key strings. */
export interface KeyPair {
  /** `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 ‖ 32-byte seed)>`: keep it secret. */
  signerKey: string;
  /** `<name>+<hex key id>+<base64(0x01 ‖ 32-byte public key)>`: give it to whoever verifies. */
  verifierKey: string;
}

/**
 * The characters of Unicode's White_Space property, which C2SP signed-note forbids in a key name:
 * U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F and
 * U+3000. Not JavaScript's `\s`, which also takes U+FEFF (and, in older engines, U+180E): a name the
 * spec allows.
 */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/**
 * Whether a string may be a key name, as C2SP signed-note says: non-empty, well-formed, with no `+`
 * (the key strings' separator) and no Unicode White_Space character (the list above); and, since a
 * note may hold none, no other control character either.
 */
export function isKeyName(name: unknown): name is string {
  return (
    typeof name === "string" &&
    name.length > 0 &&
    name.isWellFormed() &&
    !name.includes("+") &&
    ![...name].some((character) => WHITE_SPACE.has(character.codePointAt(0)!)) &&
    !hasControlCharacter(name)
  );
}

/**
 * Whether a string holds an ASCII control character, as C2SP signed-note counts them (below U+0020);
 * a newline counts unless `newlineAllowed`.
 */
export function hasControlCharacter(value: string, newlineAllowed = false): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 && !(newlineAllowed && code === 0x0a)) return true;
  }
  return false;
}

/**
 * Makes a new Ed25519 key pair for signed notes (checkpoints) under `name`.
 *
 * @example
 * const { signerKey, verifierKey } = keygen("example.com/leash");
 */
export function keygen(name: string): KeyPair {
  checkName(name);
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length);
  const signer = signerFromSeed(name, seed);
  return {
    signerKey: `${SIGNER_PREFIX}${name}+${hex(signer.keyId)}+${Buffer.concat([Buffer.of(ED25519), seed]).toString("base64")}`,
    verifierKey: signer.text,
  };
}

/**
 * Parses a verifier key `<name>+<hex key id>+<base64(0x01 ‖ public key)>`; throws `invalid_key` for
 * anything else, or when the key id is not the one its name and public key give.
 *
 * @example
 * const key = parseVerifierKey("example.com/leash+1a2b3c4d+AfU...");
 */
export function parseVerifierKey(text: string): VerifierKey {
  const [name, id, material] = splitKey(text, 0, "verifier");
  const raw = keyMaterial(material, "verifier");
  const publicKey = tryKey(
    () => createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" }),
    "verifier",
  );
  const keyId = keyIdOf(name, raw);
  if (hex(keyId) !== id) throw invalidKey("verifier", "its key id does not match its name and public key");
  return { name, keyId, publicKey, text };
}

/**
 * Parses a signer key `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 ‖ seed)>`; throws `invalid_key`
 * for anything else, or when the key id is not the one its name and derived public key give.
 */
export function parseSignerKey(text: string): SignerKey {
  if (typeof text !== "string" || !text.startsWith(SIGNER_PREFIX)) {
    throw invalidKey("signer", `it does not start with ${SIGNER_PREFIX}`);
  }
  const [name, id, material] = splitKey(text, SIGNER_PREFIX.length, "signer");
  const signer = signerFromSeed(name, keyMaterial(material, "signer"));
  if (hex(signer.keyId) !== id) throw invalidKey("signer", "its key id does not match its name and public key");
  return signer;
}

/** The key id of a name and a raw Ed25519 public key: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4], big-endian. */
function keyIdOf(name: string, publicKey: Uint8Array): number {
  const digest = hash(
    "sha256",
    Buffer.concat([Buffer.from(`${name}\n`, "utf8"), Buffer.of(ED25519), publicKey]),
    "buffer",
  );
  return digest.readUInt32BE(0);
}

function signerFromSeed(name: string, seed: Buffer): SignerKey {
  const privateKey = tryKey(
    () => createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" }),
    "signer",
  );
  const publicKey = createPublicKey(privateKey);
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length);
  const keyId = keyIdOf(name, raw);
  const text = `${name}+${hex(keyId)}+${Buffer.concat([Buffer.of(ED25519), raw]).toString("base64")}`;
  return { name, keyId, publicKey, privateKey, text };
}

/** Splits at the first two `+` after `from`: the base64 part may hold `+` itself. */
function splitKey(text: unknown, from: number, kind: string): [string, string, string] {
  if (typeof text !== "string") throw invalidKey(kind, `it is a ${typeof text}, not a string`);
  const first = text.indexOf("+", from);
  const second = first === -1 ? -1 : text.indexOf("+", first + 1);
  if (second === -1) throw invalidKey(kind, "it does not have the form name+keyid+key");
  const name = text.slice(from, first);
  const id = text.slice(first + 1, second);
  if (!isKeyName(name)) throw invalidKey(kind, "its name is empty or holds a space, a `+` or a control character");
  if (!/^[0-9a-f]{8}$/.test(id)) throw invalidKey(kind, "its key id is not 8 lowercase hex digits");
  return [name, id, text.slice(second + 1)];
}

/** The 32 bytes after the type byte 0x01 of a key's base64 part (strict: it must re-encode the same). */
function keyMaterial(material: string, kind: string): Buffer {
  const bytes = Buffer.from(material, "base64");
  if (bytes.toString("base64") !== material) throw invalidKey(kind, "its key is not canonical base64");
  if (bytes.length !== 33) throw invalidKey(kind, `its key is ${bytes.length} bytes, not 33`);
  if (bytes[0] !== ED25519) throw invalidKey(kind, `its signature type is ${bytes[0]}, not Ed25519 (1)`);
  return bytes.subarray(1);
}

function tryKey<T>(make: () => T, kind: string): T {
  try {
    return make();
  } catch (error) {
    throw new LeashError("invalid_key", `The ${kind} key is not a valid Ed25519 key.`, { cause: error });
  }
}

function checkName(name: unknown): asserts name is string {
  if (!isKeyName(name)) {
    throw new LeashError(
      "invalid_key",
      "Expected a key name that is not empty and holds no space, `+` or control character.",
      { details: { name: typeof name === "string" ? name : String(name) } },
    );
  }
}

function invalidKey(kind: string, why: string): LeashError {
  // The key's text is never put in the message: a signer key is a secret.
  return new LeashError("invalid_key", `Expected a signed-note ${kind} key, but ${why}.`, { details: { kind } });
}

function hex(keyId: number): string {
  return keyId.toString(16).padStart(8, "0");
}
