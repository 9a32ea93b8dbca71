import { isLeashError, messageOf } from "../errors/index.js";
import { parseCheckpoint, type Checkpoint } from "../evidence/checkpoint-text.js";
import { cosignCheckpoint } from "../evidence/cosignature.js";
import { EMPTY_ROOT, HASH_SIZE, sameHash, verifyConsistency, type Hash } from "../evidence/merkle.js";
import type { VerifierKey } from "../evidence/note-keys.js";
import { openNoteWith, splitNote } from "../evidence/signed-note.js";
import type { WitnessState } from "./witness-state.js";

/** The most consistency proof lines a request may hold (C2SP tlog-witness). */
export const MAX_PROOF_LINES = 63;

/** The media type of a 409 answer's body, the witness's latest cosigned size (C2SP tlog-witness). */
export const SIZE_CONTENT_TYPE = "text/x.tlog.size";

/** A witness's answer to one request: the HTTP status, the body and its media type. */
export interface WitnessAnswer {
  status: number;
  body: string;
  contentType: string;
}

/** An `add-checkpoint` request body, parsed: the old size, the consistency proof and the signed checkpoint. */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Hash[];
  note: string;
}

/** What a witness needs to answer `add-checkpoint`. */
export interface WitnessContext {
  /** The logs witnessed: origin → the verifier keys trusted for it. */
  logs: ReadonlyMap<string, readonly VerifierKey[]>;
  /** The witness's cosigner signer key. */
  signerKey: string;
  state: WitnessState;
  /** The time of a cosignature, in seconds since the Epoch (default: now). */
  now?: () => number;
}

/**
 * Parses an `add-checkpoint` body: `old <size>`, at most 63 base64 hashes, a blank line, then the
 * signed checkpoint. Returns a reason instead when it breaks that form.
 *
 * @example
 * const request = parseAddCheckpoint("old 0\n\nexample.com/leash\n1\n...");
 */
export function parseAddCheckpoint(body: string): AddCheckpointRequest | string {
  const cut = body.indexOf("\n\n");
  if (cut === -1) return "the body has no blank line between the proof and the checkpoint";
  const [old, ...hashes] = body.slice(0, cut).split("\n");
  const match = /^old (0|[1-9][0-9]*)$/.exec(old!);
  if (match === null || !Number.isSafeInteger(Number(match[1]))) {
    return "the first line is not `old <size>` with a decimal size without leading zeros";
  }
  if (hashes.length > MAX_PROOF_LINES) return `the proof has more than ${MAX_PROOF_LINES} lines`;
  const proof: Hash[] = [];
  for (const line of hashes) {
    const bytes = Buffer.from(line, "base64");
    if (bytes.toString("base64") !== line || bytes.length !== HASH_SIZE) {
      return "a consistency proof line is not the base64 of a 32-byte hash";
    }
    proof.push(new Uint8Array(bytes));
  }
  return { oldSize: Number(match[1]), proof, note: body.slice(cut + 2) };
}

/**
 * Answers a C2SP tlog-witness `add-checkpoint` request body: 400 for a malformed body or an old size
 * above the checkpoint's, 404 for an origin not witnessed, 403 for a checkpoint not signed by a key
 * trusted for it (or a bad signature by one), 409 with the latest cosigned size when the old size is
 * not it, 422 for a proof that does not verify or a fork at the same size, and 200 with the
 * cosignature line once the new latest checkpoint is stored.
 *
 * @example
 * const { status, body } = addCheckpoint({ logs, signerKey, state }, requestBody);
 */
export function addCheckpoint(context: WitnessContext, body: string): WitnessAnswer {
  const request = parseAddCheckpoint(body);
  if (typeof request === "string") return text(400, `Malformed request: ${request}.`);
  let checkpoint: Checkpoint;
  let signed: string;
  try {
    const { text: noteText } = splitNote(request.note);
    checkpoint = parseCheckpoint(noteText);
    const keys = context.logs.get(checkpoint.origin);
    if (keys === undefined) return text(404, `This witness does not witness the log ${checkpoint.origin}.`);
    const opened = openNoteWith(request.note, keys);
    signed = `${opened.text}\n${opened.verified.map((line) => `\u2014 ${line.name} ${line.base64}\n`).join("")}`;
  } catch (error) {
    if (isLeashError(error, "unknown_key") || isLeashError(error, "bad_signature")) {
      return text(403, `The checkpoint is not signed by a key this witness trusts for its log: ${messageOf(error)}`);
    }
    return text(400, `Malformed checkpoint: ${messageOf(error)}`);
  }
  const { origin, size, root } = checkpoint;
  const { oldSize, proof } = request;
  if (oldSize > size) return text(400, `The old size ${oldSize} is above the checkpoint's size ${size}.`);
  if (size === 0 && !sameHash(root, EMPTY_ROOT)) {
    return text(422, "A checkpoint of size 0 must have the root of the empty tree.");
  }
  return context.state.decide(origin, (latest) => {
    const current = latest?.size ?? 0;
    if (oldSize !== current) return { result: { status: 409, body: `${current}\n`, contentType: SIZE_CONTENT_TYPE } };
    const refusal = checkConsistency(oldSize, size, latest?.root ?? EMPTY_ROOT, root, proof);
    if (refusal !== undefined) return { result: text(422, refusal) };
    const time = (context.now ?? (() => Math.floor(Date.now() / 1000)))();
    const line = cosignCheckpoint(signed, context.signerKey, { time });
    return {
      result: { status: 200, body: line, contentType: "text/plain; charset=utf-8" },
      store: { origin, size, root, note: signed + line },
    };
  });
}

/** Why the checkpoint is not consistent with the latest cosigned one, or undefined when it is. */
function checkConsistency(
  oldSize: number,
  size: number,
  oldRoot: Hash,
  root: Hash,
  proof: readonly Hash[],
): string | undefined {
  if (oldSize === 0) {
    return proof.length === 0 ? undefined : "The proof must be empty when the old size is 0.";
  }
  if (oldSize === size) {
    if (proof.length !== 0) return "The proof must be empty when the old size is the checkpoint's size.";
    return sameHash(oldRoot, root)
      ? undefined
      : `The checkpoint has the size ${size} this witness cosigned, with another root: a fork.`;
  }
  return verifyConsistency(oldSize, size, oldRoot, root, proof)
    ? undefined
    : `The consistency proof from size ${oldSize} to ${size} does not verify: the log is not an extension of what this witness cosigned.`;
}

function text(status: number, message: string): WitnessAnswer {
  return { status, body: `${message}\n`, contentType: "text/plain; charset=utf-8" };
}
