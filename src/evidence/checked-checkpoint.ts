import { LeashError, checkOptionKeys } from "../errors/index.js";
import { parseCheckpoint, type Checkpoint } from "./checkpoint-text.js";
import type { EvidenceLog } from "./evidence-log.js";
import { sameHash } from "./merkle.js";
import { parseVerifierKey } from "./note-keys.js";
import { recomputeTree } from "./recompute-tree.js";
import { openNoteWith } from "./signed-note.js";

/** Options of `saveCheckpoint`: the log's verifier key, and the origin its checkpoints name. */
export interface SaveCheckpointOptions {
  /** The verifier key of the log's signer: the note must carry a valid signature by it. */
  key: string;
  /** The origin the checkpoint must name; default: the origin of the log's latest stored checkpoint, if any. */
  origin?: string;
}

const KNOWN = ["key", "origin"] as const;

/**
 * Checks that a note is a checkpoint of this log before it is stored, so that a stored checkpoint
 * is always one a later checkpoint can extend (a wrong one would make every later checkpoint refuse
 * with a false "a record was changed"): the note's signature by `key` verifies (`invalid_key`,
 * `malformed_note`, `unknown_key`, `bad_signature`), its text is a checkpoint (`malformed_checkpoint`)
 * naming the expected origin (`malformed_checkpoint`), it signs no more leaves than the log holds
 * (`invalid_option`), and its root is the root of the log's first `size` records, rebuilt from the
 * records as `verifyCheckpoint` does (`root_mismatch`). Returns the checkpoint.
 */
export async function checkedCheckpoint(
  log: EvidenceLog,
  note: unknown,
  options: unknown,
  expected: { held: number; origin: string | undefined },
): Promise<Checkpoint> {
  checkOptionKeys(options, KNOWN, "saveCheckpoint options");
  const { key, origin } = (options ?? {}) as Partial<SaveCheckpointOptions>;
  if (origin !== undefined && typeof origin !== "string") {
    throw new LeashError("invalid_option", "Expected `origin` to be the origin the checkpoint must name.");
  }
  const verifier = parseVerifierKey(key as string);
  if (typeof note !== "string") throw new LeashError("malformed_note", "Expected the checkpoint note to be a string.");
  const checkpoint = parseCheckpoint(openNoteWith(note, [verifier]).text);
  const wanted = origin ?? expected.origin;
  if (wanted !== undefined && checkpoint.origin !== wanted) {
    throw new LeashError(
      "malformed_checkpoint",
      `The checkpoint names the origin ${JSON.stringify(checkpoint.origin)}, but this log's is ${JSON.stringify(wanted)}: it is not a checkpoint of this log.`,
      { details: { origin: checkpoint.origin, expected: wanted } },
    );
  }
  if (checkpoint.size > expected.held) {
    throw new LeashError(
      "invalid_option",
      `The checkpoint signs ${checkpoint.size} leaves, but this log holds ${expected.held}: it is not a checkpoint of this log.`,
      { details: { treeSize: checkpoint.size, logSize: expected.held } },
    );
  }
  // From the records, never from stored subtrees, as verifyCheckpoint does.
  const { root } = await recomputeTree(log, checkpoint.size, checkpoint.size);
  if (root === null || !sameHash(root, checkpoint.root)) {
    throw new LeashError(
      "root_mismatch",
      `The checkpoint's root is not the root of this log's first ${checkpoint.size} records: it is not a checkpoint of this log; nothing was stored.`,
      { details: { treeSize: checkpoint.size } },
    );
  }
  return checkpoint;
}
