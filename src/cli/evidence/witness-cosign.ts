import { messageOf } from "../../errors/index.js";
import { isLeashError } from "../../errors/leash-error.js";
import type { LeashError } from "../../errors/leash-error.js";
import { addCosignatures } from "../../evidence/index.js";
import { witnessCheckpoint } from "../../witness/index.js";
import type { CliEvidence } from "./cli-evidence.js";
import { checkCosignerKey } from "./key-option.js";
import { unverifiedCheckpoint } from "./read-checkpoint.js";

/** How long one witness may take to answer, retry included. */
const WITNESS_TIMEOUT_MS = 30_000;

/** A witness to ask: its URL and the cosigner verifier keys its cosignature must verify with (none: unverified). */
interface WitnessTarget {
  url: string;
  keys: string[];
}

/** What each witness answered: its cosignature lines, or the error that names its refusal. */
export interface WitnessOutcome {
  url: string;
  /** Whether the lines kept were verified with a key given for the witness. */
  verified: boolean;
  lines?: string[];
  error?: { code: string; message: string; status?: number };
}

/**
 * The witnesses of `--witness URL` / `--witness URL=KEY` (split at the first `=`) and `--witness-key
 * KEY`, the keys for every witness given without its own. Throws `invalid_key` for a key that is not
 * a cosigner verifier key.
 *
 * @example
 * const targets = witnessTargets(["http://w1=witness.example/w1+5e6f7a8b+BJ3..."], []);
 */
export function witnessTargets(values: readonly string[], sharedKeys: readonly string[]): WitnessTarget[] {
  for (const key of sharedKeys) checkCosignerKey("--witness-key", key);
  return values.map((value) => {
    const split = value.indexOf("=");
    if (split === -1) return { url: value, keys: [...sharedKeys] };
    const key = value.slice(split + 1);
    checkCosignerKey(`--witness ${value.slice(0, split)}=KEY`, key);
    return { url: value.slice(0, split), keys: [key] };
  });
}

/**
 * Submits a signed checkpoint to each witness (all at once) with the consistency proof from the size
 * the witness last cosigned: first from `lastSize` (the last checkpoint kept, or 0), then, when the
 * witness answers 409 with its size, from that size. Only the lines that verify with the witness's
 * keys (or, without keys, that parse as cosignatures by a key other than the log's) are added. Returns
 * the note with every cosignature obtained, and each witness's outcome.
 *
 * @example
 * const { note: cosigned, outcomes } = await cosignByWitnesses(note, [{ url: "http://w1", keys: [] }], evidence, 0);
 */
export async function cosignByWitnesses(
  note: string,
  witnesses: readonly WitnessTarget[],
  evidence: CliEvidence,
  lastSize: number,
): Promise<{ note: string; outcomes: WitnessOutcome[] }> {
  const size = unverifiedCheckpoint(note).size;
  const settled = await Promise.allSettled(
    witnesses.map(({ url, keys }) =>
      witnessCheckpoint(url, {
        note,
        oldSize: Math.min(lastSize, size),
        proofFrom: (oldSize) => evidence.consistencyProof(oldSize, size),
        signal: AbortSignal.timeout(WITNESS_TIMEOUT_MS),
        witnessKeys: keys,
      }),
    ),
  );
  let cosigned = note;
  const outcomes = settled.map((result, index): WitnessOutcome => {
    const { url, keys } = witnesses[index]!;
    const verified = keys.length > 0;
    if (result.status === "fulfilled") {
      cosigned = addCosignatures(cosigned, result.value);
      return { url, verified, lines: result.value };
    }
    const error = result.reason as LeashError;
    const status = isLeashError(error) ? (error.details as { status?: number }).status : undefined;
    const code = isLeashError(error) ? error.code : "witness_unavailable";
    return { url, verified, error: { code, message: messageOf(error), ...(status === undefined ? {} : { status }) } };
  });
  return { note: cosigned, outcomes };
}
