import { LeashError } from "../errors/index.js";
import { verifyCosignature } from "../evidence/cosignature.js";
import { parseCosignerKey } from "../evidence/cosigner-keys.js";
import { isKeyName } from "../evidence/note-keys.js";
import { splitNote, type NoteSignature } from "../evidence/signed-note.js";

/** key id (4) ‖ timestamp (8) ‖ Ed25519 signature (64): an Ed25519 cosignature v1's bytes. */
const COSIGNATURE_BYTES = 76;

/**
 * The lines of a witness's `add-checkpoint` answer that may go on the note. With the witness's
 * verifier keys (`keys`, cosigner keys), only lines that verify as a cosignature of THIS checkpoint by
 * one of them; without keys, the lines that parse as Ed25519 cosignature lines (76 bytes) and carry
 * neither the name nor the key id of a signature already on the note (the log's own), unverified.
 * Throws `witness_refused` (`details.status` 200) when no line is kept: a witness that answers
 * without a valid cosignature refused to cosign.
 *
 * @example
 * const lines = keptCosignatures(url, note, answerLines, [witnessVerifierKey]);
 */
export function keptCosignatures(
  url: string,
  note: string,
  lines: readonly string[],
  keys: readonly string[] = [],
): string[] {
  const cosigners = keys.map((key) => parseCosignerKey(key));
  const { text, signatures } = splitNote(note);
  const kept = lines.filter((line) => {
    const signature = parsedLine(text, line);
    if (signature === null) return false;
    if (cosigners.length === 0) {
      const own = signatures.some(({ name, keyId }) => name === signature.name || keyId === signature.keyId);
      const bytes = Buffer.from(signature.base64, "base64").length;
      return !own && isKeyName(signature.name) && bytes === COSIGNATURE_BYTES;
    }
    return cosigners.some((key) => {
      if (key.name !== signature.name || key.keyId !== signature.keyId) return false;
      try {
        verifyCosignature(`${text}\n${line}\n`, key.text);
        return true;
      } catch {
        return false;
      }
    });
  });
  if (kept.length === 0) {
    const why =
      cosigners.length === 0
        ? "no line that is a cosignature by a key other than the log's"
        : `no cosignature of this checkpoint by ${cosigners.map(({ text: key }) => key).join(" or ")} that verifies`;
    throw new LeashError("witness_refused", `The witness at ${url} answered 200 with ${why}: nothing was kept.`, {
      details: { url, status: 200 },
    });
  }
  return kept;
}

/** One answer line as a note signature line, or null when it is not one. */
function parsedLine(text: string, line: string): NoteSignature | null {
  try {
    const [signature] = splitNote(`${text}\n${line}\n`).signatures;
    return signature ?? null;
  } catch {
    return null;
  }
}
