import { Command } from "commander";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { withCommonOptions, type CommonOptions } from "../common-options.js";
import type { CliEvidence } from "../evidence/cli-evidence.js";
import { evidenceTarget } from "../evidence/evidence-target.js";
import { withEvidence } from "../evidence/open-evidence.js";
import { readCheckpointFile, unverifiedCheckpoint } from "../evidence/read-checkpoint.js";
import { printJson } from "../print.js";

interface ProveOptions extends CommonOptions {
  checkpoint: string;
}

/** What `leash prove` prints: the inclusion proof of a run's last record in a checkpoint's tree. */
interface RunProof {
  /** The record's position in the log, from 0. */
  leafIndex: number;
  /** The checkpoint's tree size. */
  treeSize: number;
  /** SHA-256(0x00 ‖ the record's 32-byte digest), base64. */
  leafHash: string;
  /** The RFC 6962 inclusion proof, base64 hashes from the leaf up. */
  proof: string[];
}

const base64 = (hash: Uint8Array): string => Buffer.from(hash).toString("base64");

/** The proof of a run's last record in the tree of `size` leaves whose root is `root`. */
async function proveRun(evidence: CliEvidence, runId: string, size: number, root: Uint8Array): Promise<RunProof> {
  const logSize = await evidence.size();
  const mismatch = (why: string): CliError =>
    new CliError(
      "checkpoint_mismatch",
      `${evidence.label} ${why}: run leash verify --checkpoint to see why.`,
      EXIT_FAILURE,
    );
  if (logSize < size) throw mismatch(`holds ${logSize} records, fewer than the checkpoint's ${size}`);
  if (!Buffer.from(await evidence.root(size)).equals(Buffer.from(root)))
    throw mismatch(`does not give the root the checkpoint signed for its first ${size} records`);
  const last = await evidence.lastLeafOf(runId);
  if (last === undefined) throw new CliError("run_not_found", `${evidence.label} holds no record of the run ${runId}.`);
  if (last.leafIndex === null || last.leafIndex >= size) {
    throw new CliError(
      "not_in_checkpoint",
      `The last record of the run ${runId} (seq ${last.seq}) was logged after this checkpoint of ${size} ` +
        "records: take a new checkpoint (leash checkpoint) and prove against it.",
    );
  }
  const proof = await evidence.inclusionProof(last.leafIndex, size);
  return {
    leafIndex: last.leafIndex,
    treeSize: size,
    leafHash: base64(await evidence.leafHash(last.leafIndex)),
    proof: proof.map(base64),
  };
}

/**
 * `leash prove RUN [PATH] --checkpoint FILE`: prints, as JSON, the inclusion proof of the run's last
 * record in the tree of the checkpoint's size, `{ leafIndex, treeSize, leafHash, proof }`, which anyone
 * can check against the checkpoint's signed root. A run with no record in that tree is refused
 * (`run_not_found`, `not_in_checkpoint`); a log that no longer gives the checkpoint's root is
 * `checkpoint_mismatch` (exit 1).
 */
export function proveCommand(): Command {
  const command = new Command("prove")
    .description("print the inclusion proof of a run's last record in a checkpoint's tree, as JSON")
    .argument("<run>", "the run whose last record to prove")
    .argument("[path]", "a JSONL audit trail, a SQLite store or a postgres:// URL (default: the --db store)")
    .requiredOption("--checkpoint <file>", "the signed checkpoint to prove against");
  return withCommonOptions(command).action(async (runId: string, path: string | undefined, options: ProveOptions) => {
    const { size, root } = unverifiedCheckpoint(readCheckpointFile(options.checkpoint));
    const target = evidenceTarget(path, options);
    printJson(await withEvidence(target, (evidence) => proveRun(evidence, runId, size, root)));
  });
}
