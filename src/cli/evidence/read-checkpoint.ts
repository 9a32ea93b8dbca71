import { readFileSync } from "node:fs";
import { LeashError } from "../../errors/leash-error.js";
import { parseCheckpoint, type Checkpoint } from "../../evidence/index.js";
import { CliError } from "../cli-error.js";

/** The text of a checkpoint file (a signed note), as written; `checkpoint_not_found` when it cannot be read. */
export function readCheckpointFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      "checkpoint_not_found",
      code === "ENOENT"
        ? `There is no checkpoint file at ${path}.`
        : `Could not read the checkpoint file ${path}: ${(error as Error).message}`,
    );
  }
}

/**
 * The tree head a signed checkpoint names (origin, size, root), read without checking its signature:
 * for a command that has no verifier key (`leash prove`), whose output is checked against the signed
 * checkpoint anyway. A note that is not a checkpoint throws `malformed_checkpoint`.
 */
export function unverifiedCheckpoint(note: string): Checkpoint {
  const split = note.lastIndexOf("\n\n");
  if (split === -1) {
    throw new LeashError(
      "malformed_checkpoint",
      "The checkpoint is malformed: it has no blank line before its signatures.",
    );
  }
  return parseCheckpoint(note.slice(0, split + 1));
}
