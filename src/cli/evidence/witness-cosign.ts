import { messageOf } from "../../errors/index.js";
import { addCosignatures, isLeashError, type LeashError } from "../../index.js";
import { witnessCheckpoint } from "../../witness/index.js";
import type { CliEvidence } from "./cli-evidence.js";
import { unverifiedCheckpoint } from "./read-checkpoint.js";

/** How long one witness may take to answer, retry included. */
const WITNESS_TIMEOUT_MS = 30_000;

/** What each witness answered: its cosignature lines, or the error that names its refusal. */
export interface WitnessOutcome {
  url: string;
  lines?: string[];
  error?: { code: string; message: string; status?: number };
}

/**
 * Submits a signed checkpoint to each witness (all at once) with the consistency proof from the size
 * the witness last cosigned: first from `lastSize` (the last checkpoint kept, or 0), then, when the
 * witness answers 409 with its size, from that size. Returns the note with every cosignature obtained,
 * and each witness's outcome.
 *
 * @example
 * const { note: cosigned, outcomes } = await cosignByWitnesses(note, ["http://w1"], evidence, 0);
 */
export async function cosignByWitnesses(
  note: string,
  urls: readonly string[],
  evidence: CliEvidence,
  lastSize: number,
): Promise<{ note: string; outcomes: WitnessOutcome[] }> {
  const size = unverifiedCheckpoint(note).size;
  const settled = await Promise.allSettled(
    urls.map((url) =>
      witnessCheckpoint(url, {
        note,
        oldSize: Math.min(lastSize, size),
        proofFrom: (oldSize) => evidence.consistencyProof(oldSize, size),
        signal: AbortSignal.timeout(WITNESS_TIMEOUT_MS),
      }),
    ),
  );
  let cosigned = note;
  const outcomes = settled.map((result, index): WitnessOutcome => {
    const url = urls[index]!;
    if (result.status === "fulfilled") {
      cosigned = addCosignatures(cosigned, result.value);
      return { url, lines: result.value };
    }
    const error = result.reason as LeashError;
    const status = isLeashError(error) ? (error.details as { status?: number }).status : undefined;
    const code = isLeashError(error) ? error.code : "witness_unavailable";
    return { url, error: { code, message: messageOf(error), ...(status === undefined ? {} : { status }) } };
  });
  return { note: cosigned, outcomes };
}
