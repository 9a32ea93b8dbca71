/**
 * An independent checker of leash's evidence, written from the specifications alone and sharing no
 * code with src/evidence: RFC 6962 §2.1 (MTH, PATH, PROOF by their recursive definitions over plain
 * arrays), RFC 9162 §2.1.3.2 and §2.1.4.2 (proof verification, here with BigInt arithmetic), C2SP
 * signed-note and tlog-checkpoint (parsed line by line, Ed25519 checked with node:crypto).
 */
import { createHash, createPublicKey, verify } from "node:crypto";

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const digest = createHash("sha256");
  for (const part of parts) digest.update(part);
  return digest.digest();
};

/** RFC 6962: a leaf is hashed with a 0x00 prefix, a node with 0x01. */
export const specLeaf = (data: Uint8Array): Buffer => sha256(Buffer.of(0), data);
export const specNode = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Buffer.of(1), left, right);

/** The largest power of two smaller than n (n > 1). */
function k(n: number): number {
  return 2 ** Math.floor(Math.log2(n - 1));
}

/** MTH(D[n]) over leaf hashes, by the recursive definition (the empty tree: SHA-256 of nothing). */
export function specRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return Buffer.from(leaves[0]!);
  const split = k(leaves.length);
  return specNode(specRoot(leaves.slice(0, split)), specRoot(leaves.slice(split)));
}

/** PATH(m, D[n]) by the recursive definition. */
export function specPath(m: number, leaves: readonly Uint8Array[]): Buffer[] {
  if (leaves.length <= 1) return [];
  const split = k(leaves.length);
  return m < split
    ? [...specPath(m, leaves.slice(0, split)), specRoot(leaves.slice(split))]
    : [...specPath(m - split, leaves.slice(split)), specRoot(leaves.slice(0, split))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true), by the recursive definition. */
export function specProof(m: number, leaves: readonly Uint8Array[]): Buffer[] {
  const subproof = (count: number, part: readonly Uint8Array[], whole: boolean): Buffer[] => {
    if (count === part.length) return whole ? [] : [specRoot(part)];
    const split = k(part.length);
    return count <= split
      ? [...subproof(count, part.slice(0, split), whole), specRoot(part.slice(split))]
      : [...subproof(count - split, part.slice(split), false), specRoot(part.slice(0, split))];
  };
  return m === 0 || m === leaves.length ? [] : subproof(m, leaves, true);
}

const odd = (value: bigint): boolean => (value & 1n) === 1n;

/** RFC 9162 §2.1.3.2. */
export function specVerifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  path: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r: Uint8Array = leaf;
  for (const p of path) {
    if (sn === 0n) return false;
    if (odd(fn) || fn === sn) {
      r = specNode(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = specNode(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && Buffer.compare(Buffer.from(r), Buffer.from(root)) === 0;
}

/** RFC 9162 §2.1.4.2, for 0 < first < second. */
export function specVerifyConsistency(
  first: number,
  second: number,
  firstHash: Uint8Array,
  secondHash: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (proof.length === 0 || first <= 0 || first >= second) return false;
  const path = (first & (first - 1)) === 0 ? [firstHash, ...proof] : [...proof];
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  while (odd(fn)) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if (odd(fn) || fn === sn) {
      fr = specNode(c, fr);
      sr = specNode(c, sr);
      while (!odd(fn) && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      sr = specNode(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return (
    Buffer.compare(Buffer.from(fr), Buffer.from(firstHash)) === 0 &&
    Buffer.compare(Buffer.from(sr), Buffer.from(secondHash)) === 0 &&
    sn === 0n
  );
}

/**
 * C2SP signed-note, verified from the spec: the text is everything up to the last blank line; each
 * signature line is "— name base64(keyid ‖ sig)"; the verifier key is name+hex(keyid)+base64(0x01 ‖ pub)
 * with keyid = SHA-256(name ‖ 0x0A ‖ 0x01 ‖ pub)[:4]. Returns the text when `vkey` signed it, else null.
 */
export function specOpenNote(note: string, vkey: string): string | null {
  const [name, idHex, ...rest] = vkey.split("+");
  const material = Buffer.from(rest.join("+"), "base64");
  if (material.length !== 33 || material[0] !== 1 || name === undefined || idHex === undefined) return null;
  const pub = material.subarray(1);
  const id = sha256(Buffer.from(name + "\n"), Buffer.of(1), pub).subarray(0, 4);
  if (id.toString("hex") !== idHex) return null;
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0) return null;
  const text = note.slice(0, cut + 1);
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), pub]),
    format: "der",
    type: "spki",
  });
  for (const line of note
    .slice(cut + 2)
    .split("\n")
    .filter((part) => part !== "")) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (match === null) return null;
    const bytes = Buffer.from(match[2]!, "base64");
    if (match[1] === name && bytes.subarray(0, 4).equals(id)) {
      return verify(null, Buffer.from(text), key, bytes.subarray(4)) ? text : null;
    }
  }
  return null;
}

/** C2SP tlog-checkpoint's three lines. */
export function specCheckpoint(text: string): { origin: string; size: number; root: Buffer } {
  const [origin, size, root] = text.split("\n");
  return { origin: origin!, size: Number(size), root: Buffer.from(root!, "base64") };
}
