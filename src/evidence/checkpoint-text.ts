import { LeashError } from "../errors/index.js";
import { HASH_SIZE, type Hash } from "./merkle.js";
import { hasControlCharacter } from "./note-keys.js";

/** The tree head a checkpoint signs (C2SP tlog-checkpoint). */
export interface Checkpoint {
  /** The log's identity, e.g. `example.com/leash`. */
  origin: string;
  /** How many leaves the tree holds. */
  size: number;
  /** The RFC 6962 root of the tree of `size` leaves. */
  root: Hash;
  /** Opaque extension lines after the root, each non-empty (the spec advises against them). */
  extensions: string[];
}

/**
 * The note text of a checkpoint: `<origin>\n<size>\n<base64 root>\n`, then its extension lines.
 *
 * @example
 * const text = formatCheckpoint({ origin: "example.com/leash", size: 3, root, extensions: [] });
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, root, extensions } = checkpoint;
  const text = [origin, String(size), Buffer.from(root).toString("base64"), ...extensions].join("\n") + "\n";
  // What is written must parse back to the same: a bad origin or size is refused here, not by a verifier.
  parseCheckpoint(text);
  return text;
}

/**
 * Parses a checkpoint's note text strictly: a non-empty origin, a decimal size without leading zeros,
 * the base64 of a 32-byte root, then non-empty extension lines; anything else throws
 * `malformed_checkpoint`.
 *
 * @example
 * const { origin, size, root } = parseCheckpoint(openNote(note, [verifierKey]).text);
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (typeof text !== "string" || !text.endsWith("\n")) throw malformed("its text does not end in a newline");
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) throw malformed("it has fewer than three lines (origin, size, root)");
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0) throw malformed("its origin line is empty");
  if (hasControlCharacter(origin) || !origin.isWellFormed()) throw malformed("its origin holds a control character");
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw malformed(`its size ${JSON.stringify(size.slice(0, 40))} is not a decimal number without leading zeros`);
  }
  const bytes = Buffer.from(root, "base64");
  if (bytes.toString("base64") !== root || bytes.length !== HASH_SIZE) {
    throw malformed("its root is not the base64 of 32 bytes");
  }
  if (extensions.some((line) => line.length === 0)) throw malformed("it has an empty extension line");
  return { origin, size: Number(size), root: new Uint8Array(bytes), extensions };
}

/**
 * Whether a value may be a checkpoint's origin line: non-empty, well-formed text with no control
 * character (a tab or a newline included). `signCheckpoint` and an agent's `checkpoint` option refuse
 * anything else (`invalid_option`).
 *
 * @example
 * isCheckpointOrigin("example.com/leash"); // true
 */
export function isCheckpointOrigin(origin: unknown): origin is string {
  return typeof origin === "string" && origin.length > 0 && !hasControlCharacter(origin) && origin.isWellFormed();
}

function malformed(why: string): LeashError {
  return new LeashError("malformed_checkpoint", `The checkpoint is malformed: ${why}.`);
}
