import type { CheckpointProblem } from "../../evidence/checkpoint.js";
import { isLeashError } from "../../errors/leash-error.js";
import { verifyCheckpoint } from "../../evidence/checkpoint.js";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import type { CommonOptions } from "../common-options.js";
import { evidenceTarget, type EvidenceTarget } from "../evidence/evidence-target.js";
import { withEvidence } from "../evidence/open-evidence.js";
import { readCheckpointFile, unverifiedCheckpoint } from "../evidence/read-checkpoint.js";
import { checkCosignerKey } from "../evidence/key-option.js";
import { verifierKeyOf, type KeyOptions } from "../evidence/read-key.js";
import { printJson, printLines } from "../print.js";

/** The options of `leash verify --checkpoint`. */
interface CheckpointVerifyOptions extends CommonOptions, KeyOptions {
  checkpoint: string;
  head?: string;
  run?: string;
  witnessKey?: string[];
  witnesses?: string;
}

/** What the check of a checkpoint is given: the log's verifier key and the witnesses' that must have cosigned. */
interface CheckKeys {
  key: string;
  witnessKeys?: string[];
  witnesses?: number;
}

/** The keys of `--key`/`--key-file`, `--witness-key` and `--witnesses`. */
function checkKeysOf(options: CheckpointVerifyOptions): CheckKeys {
  const key = verifierKeyOf(options);
  const witnessKeys = options.witnessKey ?? [];
  for (const witnessKey of witnessKeys) checkCosignerKey("--witness-key", witnessKey);
  if (options.witnesses !== undefined && !/^[1-9][0-9]{0,8}$/.test(options.witnesses)) {
    throw new CliError("invalid_option", "--witnesses takes a whole number of witnesses, 1 or more.");
  }
  if (witnessKeys.length === 0) {
    if (options.witnesses !== undefined)
      throw new CliError("invalid_option", "--witnesses goes with --witness-key KEY.");
    return { key };
  }
  return { key, witnessKeys, ...(options.witnesses === undefined ? {} : { witnesses: Number(options.witnesses) }) };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The lines printed for a checkpoint's check: what was checked, then every problem by kind, run and seq. */
function checkpointLines(
  label: string,
  note: string,
  size: number | null,
  problems: CheckpointProblem[],
  store: boolean,
): string[] {
  let head = "a checkpoint";
  try {
    const checkpoint = unverifiedCheckpoint(note);
    head = `the checkpoint of ${checkpoint.origin} at ${plural(checkpoint.size, "record")}`;
  } catch {
    // A malformed checkpoint is one of the problems listed below.
  }
  const held = size === null ? "" : ` (${plural(size, "record")})`;
  const lines = [`Checked ${label}${held} against ${head}.`];
  if (problems.length === 0) {
    lines.push("The signature holds, every chain holds, and the log holds exactly what was signed, and extends it.");
    if (store) lines.push("Every run's saved state agrees with its records.");
    return lines;
  }
  lines.push(`${plural(problems.length, "problem")}:`);
  for (const { problem, message, run, seq, step, field } of problems) {
    const where = [
      run === undefined ? null : `run ${run}`,
      seq === undefined ? null : `seq ${seq}`,
      step === undefined ? null : `step ${step}`,
      field === undefined ? null : `field ${field}`,
    ].filter((part) => part !== null);
    lines.push(`  ${problem}${where.length === 0 ? "" : ` (${where.join(", ")})`}: ${message}`);
  }
  return lines;
}

/** Checks a checkpoint against a target; a JSONL trail that cannot be read is a problem, not an error. */
async function checkTarget(
  target: EvidenceTarget,
  note: string,
  keys: CheckKeys,
): Promise<{ label: string; size: number | null; problems: CheckpointProblem[] }> {
  try {
    return await withEvidence(target, async (evidence) => ({
      label: evidence.label,
      size: await evidence.size(),
      problems: await verifyCheckpoint(evidence.source, note, keys),
    }));
  } catch (error) {
    if (target.kind !== "jsonl" || !(isLeashError(error, "audit_torn") || isLeashError(error, "audit_corrupt"))) {
      throw error;
    }
    // verifyCheckpoint names what is wrong with the signature and a trail it cannot read.
    return { label: target.label, size: null, problems: await verifyCheckpoint(target.path, note, keys) };
  }
}

/**
 * `leash verify [PATH] --checkpoint FILE --key KEY`: checks a signed checkpoint against a JSONL trail or
 * a store with the verifier key alone (and, with `--witness-key`, that `--witnesses` of those witnesses,
 * default all, cosigned it: else `missing_cosignature`), prints what it found (`--json`: the list of problems, `[]` when
 * all hold) and exits 1 naming each problem (`verification_failed`).
 *
 * @example
 * await verifyAgainstCheckpoint("audit.jsonl", { checkpoint: "cp.note", key: verifierKey });
 */
export async function verifyAgainstCheckpoint(
  path: string | undefined,
  options: CheckpointVerifyOptions,
): Promise<void> {
  if (options.head !== undefined || options.run !== undefined)
    throw new CliError("invalid_option", "--head and --run do not go with --checkpoint: the checkpoint is the head.");
  const keys = checkKeysOf(options);
  const note = readCheckpointFile(options.checkpoint);
  const target = evidenceTarget(path, options);
  const { label, size, problems } = await checkTarget(target, note, keys);
  if (options.json) printJson(problems);
  else printLines(checkpointLines(label, note, size, problems, target.kind !== "jsonl"));
  if (problems.length > 0) {
    throw new CliError(
      "verification_failed",
      `${label} does not hold the checkpoint ${options.checkpoint}: ${plural(problems.length, "problem")}.`,
      EXIT_FAILURE,
    );
  }
}
