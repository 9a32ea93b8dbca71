import { LeashError, messageOf } from "../errors/index.js";
import type { Hash } from "../evidence/merkle.js";
import { parseCheckpoint } from "../evidence/checkpoint-text.js";
import { parseCosignerKey } from "../evidence/cosigner-keys.js";
import { splitNote } from "../evidence/signed-note.js";
import { keptCosignatures } from "./witness-answer.js";

/** What {@link submitToWitness} sends: the signed checkpoint, the size the witness last cosigned, the proof from it. */
export interface WitnessSubmission {
  /** The log's signed checkpoint. */
  note: string;
  /** The size of the latest checkpoint the witness cosigned for the log (0 when it cosigned none). */
  oldSize: number;
  /** The RFC 6962 consistency proof from `oldSize` to the checkpoint's size (empty from 0). */
  proof: readonly Hash[];
  /** Aborts the request (e.g. `AbortSignal.timeout(10_000)`). */
  signal?: AbortSignal;
  /**
   * The witness's cosigner verifier keys: only answer lines that verify as cosignatures of this
   * checkpoint by one of them are kept. Without them, lines are kept unverified (see {@link keptCosignatures}).
   */
  witnessKeys?: readonly string[];
}

const REASONS: Record<number, string> = {
  400: "the request is malformed or its old size is above the checkpoint's",
  403: "the checkpoint is not signed by a key the witness trusts for this log",
  404: "the witness does not witness this log",
  409: "the old size is not the size the witness last cosigned",
  422: "the checkpoint is not consistent with what the witness cosigned (a bad proof or a fork)",
};

/**
 * Submits a checkpoint to a C2SP tlog-witness (`POST <url>/add-checkpoint`) and returns the
 * cosignature lines of its answer worth keeping (each `— <name> <base64>`, without the newline):
 * with `witnessKeys`, those that verify as cosignatures of this checkpoint by one of the keys; without,
 * those that parse as cosignatures by a key other than the log's, not verified. Append them with
 * `addCosignatures`. A refusal throws `witness_refused` naming the status and the witness's reason
 * (`details.status`; on 409, `details.size` is the size it last cosigned), and so does a 200 answer
 * with no line kept; a witness that cannot be reached throws `witness_unavailable`.
 *
 * @example
 * const lines = await submitToWitness("http://127.0.0.1:4123", { note, oldSize: 0, proof: [], witnessKeys: [witnessKey] });
 * const cosigned = addCosignatures(note, lines);
 */
export async function submitToWitness(url: string, submission: WitnessSubmission): Promise<string[]> {
  const { note, oldSize, proof, witnessKeys = [] } = submission;
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) {
    throw new LeashError("invalid_option", "Expected `oldSize` to be a size: a whole number, 0 or more.");
  }
  for (const key of witnessKeys) parseCosignerKey(key);
  const body = `old ${oldSize}\n${proof.map((hash) => `${Buffer.from(hash).toString("base64")}\n`).join("")}\n${note}`;
  const endpoint = `${url.replace(/\/+$/, "")}/add-checkpoint`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      body,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      ...(submission.signal === undefined ? {} : { signal: submission.signal }),
    });
    text = await response.text();
  } catch (error) {
    throw new LeashError("witness_unavailable", `The witness at ${url} could not be reached: ${messageOf(error)}`, {
      details: { url },
      cause: error,
    });
  }
  if (response.status !== 200) throw refusal(url, response.status, text);
  const lines = text.endsWith("\n") ? text.split("\n").filter((line) => line !== "") : [];
  return keptCosignatures(url, note, lines, witnessKeys);
}

/**
 * Gets a witness's cosignature of a checkpoint when the client does not know the size the witness last
 * cosigned: it submits from `oldSize` (e.g. the last checkpoint it stored), and on a 409 submits once
 * more from the size the witness reports, with the proof `proofFrom` gives for that size.
 *
 * @example
 * const lines = await witnessCheckpoint(url, {
 *   note,
 *   oldSize: last.size,
 *   proofFrom: (size) => log.consistencyProof(size),
 *   witnessKeys: [witnessVerifierKey],
 * });
 */
export async function witnessCheckpoint(
  url: string,
  options: {
    note: string;
    oldSize: number;
    proofFrom: (oldSize: number) => readonly Hash[] | Promise<readonly Hash[]>;
    signal?: AbortSignal;
    /** The witness's cosigner verifier keys, as for {@link submitToWitness}. */
    witnessKeys?: readonly string[];
  },
): Promise<string[]> {
  const { note, proofFrom, signal, witnessKeys } = options;
  const size = parseCheckpoint(splitNote(note).text).size;
  const submit = async (oldSize: number): Promise<string[]> =>
    submitToWitness(url, {
      note,
      oldSize,
      proof: oldSize === 0 || oldSize === size ? [] : await proofFrom(oldSize),
      ...(signal === undefined ? {} : { signal }),
      ...(witnessKeys === undefined ? {} : { witnessKeys }),
    });
  try {
    return await submit(Math.min(options.oldSize, size));
  } catch (error) {
    const details = (error as LeashError).details as { status?: number; size?: number } | undefined;
    if (!(error instanceof LeashError) || error.code !== "witness_refused" || details?.status !== 409) throw error;
    if (details.size === undefined || details.size > size) throw error;
    return submit(details.size);
  }
}

function refusal(url: string, status: number, body: string): LeashError {
  const first = body.split("\n", 1)[0]!.slice(0, 300);
  const size = status === 409 && /^(0|[1-9][0-9]*)\n$/.test(body) ? Number(body.trim()) : undefined;
  const reason = status === 409 && size !== undefined ? `it last cosigned size ${size}` : first;
  const why = REASONS[status] ?? "the witness failed";
  return new LeashError(
    "witness_refused",
    `The witness at ${url} refused the checkpoint with ${status} (${why}): ${reason}`,
    { details: { url, status, ...(size === undefined ? {} : { size }) } },
  );
}
