import { createPrivateKey, createPublicKey, generateKeyPairSync, hash, type KeyObject } from "node:crypto";
import { LeashError } from "../errors/index.js";
import { isKeyName, type KeyPair } from "./note-keys.js";

/**
 * The signature type byte of an Ed25519 cosignature (C2SP tlog-cosignature v1). It differs from a
 * plain Ed25519 note key's 0x01, so a cosigner's key id never equals a log key's made from the same seed.
 */
export const COSIGNATURE_ED25519 = 0x04;
/** The type byte of a plain Ed25519 signed-note key (`leash keygen`'s). */
const NOTE_ED25519 = 0x01;
// The DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS #8) or public key (SPKI), RFC 8410.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const SIGNER_PREFIX = "PRIVATE+KEY+";

/** A cosigner's (a witness's) verifier key, parsed: its name, key id and Ed25519 public key. */
export interface CosignerKey {
  name: string;
  /** SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4], as a uint32. */
  keyId: number;
  publicKey: KeyObject;
  /** The key's text, `<name>+<hex key id>+<base64(0x04 ‖ public key)>`. */
  text: string;
}

/** A cosigner's signer key, parsed: its {@link CosignerKey} and the private key. */
export interface CosignerSigner extends CosignerKey {
  privateKey: KeyObject;
}

/**
 * Makes a new Ed25519 cosigner (witness) key pair under `name`: the signer key
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(0x04 ‖ seed)>` and the verifier key
 * `<name>+<hex key id>+<base64(0x04 ‖ public key)>`, key id = SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4].
 *
 * @example
 * const { signerKey, verifierKey } = cosignerKeygen("witness.example/w1");
 */
export function cosignerKeygen(name: string): KeyPair {
  if (!isKeyName(name)) {
    throw new LeashError(
      "invalid_key",
      "Expected a key name that is not empty and holds no space, `+` or control character.",
    );
  }
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length);
  const signer = cosignerFromSeed(name, seed);
  const material = Buffer.concat([Buffer.of(COSIGNATURE_ED25519), seed]).toString("base64");
  return { signerKey: `${SIGNER_PREFIX}${name}+${hex(signer.keyId)}+${material}`, verifierKey: signer.text };
}

/**
 * Parses a cosigner's verifier key `<name>+<hex key id>+<base64(0x04 ‖ public key)>`; throws
 * `invalid_key` for anything else (a plain note key of type 0x01 included) or a key id that does not match.
 *
 * @example
 * const witness = parseCosignerKey("witness.example/w1+0a1b2c3d+BPo...");
 */
export function parseCosignerKey(text: string): CosignerKey {
  const [name, id, material] = splitKey(text, 0);
  const [type, raw] = keyMaterial(material);
  if (type !== COSIGNATURE_ED25519) {
    throw invalidKey(`its signature type is ${type}, not an Ed25519 cosignature (4)`);
  }
  const publicKey = tryKey(() =>
    createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" }),
  );
  const keyId = cosignerKeyId(name, raw);
  if (hex(keyId) !== id) throw invalidKey("its key id does not match its name and public key");
  return { name, keyId, publicKey, text };
}

/**
 * Parses a cosigner's signer key. It takes `cosignerKeygen`'s keys (type 0x04) and also a plain note
 * signer key (type 0x01, `leash keygen`'s), whose seed then signs cosignatures under the cosignature
 * key id: the spec lets a cosigner reuse a public key under another key id byte. Throws `invalid_key`.
 */
export function parseCosignerSigner(text: string): CosignerSigner {
  if (typeof text !== "string" || !text.startsWith(SIGNER_PREFIX)) {
    throw invalidKey(`it does not start with ${SIGNER_PREFIX}`);
  }
  const [name, id, material] = splitKey(text, SIGNER_PREFIX.length);
  const [type, seed] = keyMaterial(material);
  if (type !== COSIGNATURE_ED25519 && type !== NOTE_ED25519) {
    throw invalidKey(`its signature type is ${type}, not Ed25519 (1 or 4)`);
  }
  const signer = cosignerFromSeed(name, seed);
  const expected = type === NOTE_ED25519 ? noteKeyId(name, rawPublicKey(signer.publicKey)) : signer.keyId;
  if (hex(expected) !== id) throw invalidKey("its key id does not match its name and public key");
  return signer;
}

/** A cosigner's key id: SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4], big-endian. */
function cosignerKeyId(name: string, publicKey: Uint8Array): number {
  return keyIdWith(COSIGNATURE_ED25519, name, publicKey);
}

function noteKeyId(name: string, publicKey: Uint8Array): number {
  return keyIdWith(NOTE_ED25519, name, publicKey);
}

function keyIdWith(type: number, name: string, publicKey: Uint8Array): number {
  const input = Buffer.concat([Buffer.from(`${name}\n`, "utf8"), Buffer.of(type), publicKey]);
  return hash("sha256", input, "buffer").readUInt32BE(0);
}

function cosignerFromSeed(name: string, seed: Buffer): CosignerSigner {
  const privateKey = tryKey(() =>
    createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" }),
  );
  const publicKey = createPublicKey(privateKey);
  const raw = rawPublicKey(publicKey);
  const keyId = cosignerKeyId(name, raw);
  const text = `${name}+${hex(keyId)}+${Buffer.concat([Buffer.of(COSIGNATURE_ED25519), raw]).toString("base64")}`;
  return { name, keyId, publicKey, privateKey, text };
}

function rawPublicKey(publicKey: KeyObject): Buffer {
  return publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length);
}

/** Splits at the first two `+` after `from`: the base64 part may hold `+` itself. */
function splitKey(text: unknown, from: number): [string, string, string] {
  if (typeof text !== "string") throw invalidKey(`it is a ${typeof text}, not a string`);
  const first = text.indexOf("+", from);
  const second = first === -1 ? -1 : text.indexOf("+", first + 1);
  if (second === -1) throw invalidKey("it does not have the form name+keyid+key");
  const name = text.slice(from, first);
  const id = text.slice(first + 1, second);
  if (!isKeyName(name)) throw invalidKey("its name is empty or holds a space, a `+` or a control character");
  if (!/^[0-9a-f]{8}$/.test(id)) throw invalidKey("its key id is not 8 lowercase hex digits");
  return [name, id, text.slice(second + 1)];
}

/** The type byte and the 32 bytes after it of a key's base64 part (strict: it must re-encode the same). */
function keyMaterial(material: string): [number, Buffer] {
  const bytes = Buffer.from(material, "base64");
  if (bytes.toString("base64") !== material) throw invalidKey("its key is not canonical base64");
  if (bytes.length !== 33) throw invalidKey(`its key is ${bytes.length} bytes, not 33`);
  return [bytes[0]!, bytes.subarray(1)];
}

function tryKey<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new LeashError("invalid_key", "The cosigner key is not a valid Ed25519 key.", { cause: error });
  }
}

function invalidKey(why: string): LeashError {
  // The key's text is never put in the message: a signer key is a secret.
  return new LeashError("invalid_key", `Expected a cosigner (witness) key, but ${why}.`);
}

function hex(keyId: number): string {
  return keyId.toString(16).padStart(8, "0");
}
