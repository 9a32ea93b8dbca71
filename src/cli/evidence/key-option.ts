import { parseCosignerKey } from "../../evidence/cosigner-keys.js";
import { parseVerifierKey } from "../../evidence/note-keys.js";
import { LeashError } from "../../errors/leash-error.js";

/** Whether a text parses as the key `parse` takes. */
function parses(parse: (text: string) => unknown, text: string): boolean {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a witness's cosigner verifier key given with `option` (`--witness-key`, `--witness URL=KEY`).
 * A log's verifier key (what `leash keygen` prints) is the usual mistake, since a witness's signer key
 * is made by `leash keygen` too: the message says where the right key is printed. Throws `invalid_key`.
 */
export function checkCosignerKey(option: string, key: string): void {
  if (parses(parseCosignerKey, key)) return;
  if (parses(parseVerifierKey, key)) {
    throw new LeashError(
      "invalid_key",
      `${option} was given a log's verifier key (the kind \`leash keygen\` prints), not a witness's cosigner verifier key. A witness signs its cosignatures under a key id of its own: \`leash witness\` prints its cosigner verifier key when it starts, on the line "Verifier key: …" (the field verifierKey with --json). Give that key.`,
    );
  }
  parseCosignerKey(key);
}

/**
 * Checks a log's verifier key given with `option` (`--log ORIGIN=KEY`). A witness's cosigner verifier
 * key is the mistake named: the log's key is the one `leash keygen` printed for the log's signer key.
 * Throws `invalid_key`.
 */
export function checkLogKey(option: string, key: string): void {
  if (parses(parseVerifierKey, key)) return;
  if (parses(parseCosignerKey, key)) {
    throw new LeashError(
      "invalid_key",
      `${option} was given a witness's cosigner verifier key, not a log's verifier key. The log's verifier key is the one \`leash keygen\` printed when it made the log's signer key (the key \`leash checkpoint --key-file\` signs with). Give that key.`,
    );
  }
  parseVerifierKey(key);
}
