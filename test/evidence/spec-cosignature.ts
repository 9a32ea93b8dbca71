/**
 * An independent checker of C2SP tlog-cosignature v1 (Ed25519), written from the specification alone
 * and sharing no code with src/: the verifier key is name+hex(keyid)+base64(0x04 ‖ pub) with keyid =
 * SHA-256(name ‖ "\n" ‖ 0x04 ‖ pub)[:4]; the line's bytes are keyid ‖ u64 big-endian timestamp ‖ a
 * 64-byte Ed25519 signature of "cosignature/v1\ntime <t>\n" followed by the checkpoint's note body.
 */
import { createHash, createPublicKey, verify } from "node:crypto";

/** The cosignature's time when `vkey` cosigned the note's body, else null. */
export function specVerifyCosignature(note: string, vkey: string): number | null {
  const [name, idHex, ...rest] = vkey.split("+");
  const material = Buffer.from(rest.join("+"), "base64");
  if (name === undefined || idHex === undefined || material.length !== 33 || material[0] !== 0x04) return null;
  const pub = material.subarray(1);
  const id = createHash("sha256")
    .update(Buffer.from(`${name}\n`))
    .update(Buffer.of(0x04))
    .update(pub)
    .digest()
    .subarray(0, 4);
  if (id.toString("hex") !== idHex) return null;
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0) return null;
  const body = note.slice(0, cut + 1);
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), pub]),
    format: "der",
    type: "spki",
  });
  for (const line of note.slice(cut + 2).split("\n")) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (match === null || match[1] !== name) continue;
    const bytes = Buffer.from(match[2]!, "base64");
    if (bytes.length !== 76 || !bytes.subarray(0, 4).equals(id)) continue;
    const time = bytes.readBigUInt64BE(4);
    if (time === 0n || time >= 1n << 63n) return null;
    const message = Buffer.from(`cosignature/v1\ntime ${time}\n${body}`);
    return verify(null, message, key, bytes.subarray(12)) ? Number(time) : null;
  }
  return null;
}
