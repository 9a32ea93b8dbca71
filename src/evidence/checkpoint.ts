import type { AuditProblemKind } from "../audit/verify-audit.js";
import { isLeashError, LeashError, messageOf } from "../errors/index.js";
import { jsonlEvidenceLog, type EvidenceLog } from "./evidence-log.js";
import { recordsRootExtending, type SignedHead } from "./fork-check.js";
import type { StoreEvidenceLog } from "./store-evidence-log.js";
import { evidenceLogOf, isEvidenceLog, type EvidenceLogOwner } from "./evidence-log-of.js";
import { recomputeTree } from "./recompute-tree.js";
import { sameHash } from "./merkle.js";
import { formatCheckpoint, isCheckpointOrigin, parseCheckpoint, type Checkpoint } from "./checkpoint-text.js";
import { parseVerifierKey } from "./note-keys.js";
import { openNoteWith, signNote, splitNote } from "./signed-note.js";
import { missingCosignatures, witnessQuorum } from "./witness-quorum.js";
import { storeStateProblems } from "./store-state-problems.js";

/**
 * What a log is, for {@link signCheckpoint} and {@link verifyCheckpoint}: a JSONL trail's path, an
 * {@link EvidenceLog}, or a store (`SqliteStore`, `PostgresStore`, `MemoryStore`, `MemoryAuditSink`),
 * whose log is `evidenceLogOf(store)`.
 */
export type EvidenceSource = string | EvidenceLog | EvidenceLogOwner;

function logOf(source: EvidenceSource): EvidenceLog {
  if (typeof source === "string") return jsonlEvidenceLog(source);
  return isEvidenceLog(source) ? source : evidenceLogOf(source);
}

/** What kind of problem {@link verifyCheckpoint} found: its own, or one of `verifyAudit`'s. */
export type CheckpointProblemKind =
  | "malformed_checkpoint"
  | "unknown_key"
  | "bad_signature"
  | "missing_cosignature"
  | "log_shorter"
  | "root_mismatch"
  | "state_mismatch"
  | AuditProblemKind;

/**
 * One problem of a checkpoint or of the log it is checked against (`run` and `seq` for a chain's;
 * `run`, `step` and `field` for a store's saved state that disagrees with its records).
 */
export interface CheckpointProblem {
  problem: CheckpointProblemKind;
  message: string;
  run?: string;
  seq?: number;
  /** For a `state_mismatch`: the step it is in, when it is a step's. */
  step?: number;
  /** For a `state_mismatch`: the part of the saved state that disagrees. */
  field?: string;
}

/**
 * Signs the log's current tree head as a C2SP tlog-checkpoint note with a signer key. It refuses a log
 * whose chains do not verify (`audit_invalid`): a checkpoint vouches for what it signs. The root it
 * signs is rebuilt from the records (never read from stored subtrees), and for a store that keeps
 * checkpoints it refuses (`audit_invalid`, naming the latest kept checkpoint's size) a log that holds
 * fewer records than that checkpoint, whose records no longer give its root, or whose stored tree is
 * not its records': a log never signs a fork of a checkpoint it signed.
 *
 * @example
 * const note = await signCheckpoint("audit.jsonl", { key: signerKey, origin: "example.com/leash" });
 */
export async function signCheckpoint(
  source: EvidenceSource,
  options: { key: string; origin: string },
): Promise<string> {
  const { key, origin } = options;
  if (!isCheckpointOrigin(origin)) {
    throw new LeashError(
      "invalid_option",
      "Expected `origin` to be a non-empty line of text (such as `example.com/leash`).",
    );
  }
  if (typeof key !== "string") throw new LeashError("invalid_key", "Expected `key` to be a signer key's text.");
  const log = logOf(source);
  // A store's log sequences what it holds first, so the checkpoint signs every record committed.
  if ("sequence" in log && typeof log.sequence === "function") await (log.sequence as () => Promise<number>)();
  const problems = await log.verifyChains();
  if (problems.length > 0) {
    throw new LeashError(
      "audit_invalid",
      `The log's chains do not verify (${problems.length} problems, the first: ${problems[0]!.message}); nothing was signed.`,
      { details: { problems: problems.length } },
    );
  }
  const size = await log.size();
  const root = await recordsRootExtending(log, await latestSigned(log), size);
  return signNote(formatCheckpoint({ origin, size, root, extensions: [] }), key);
}

/**
 * Checks a signed checkpoint against a log with the verifier key alone: the signature, the
 * checkpoint's form, that the log's chains verify, and that the log still holds exactly the tree that
 * was signed (its first `size` leaves give the signed root) and perhaps more. Given a store, it also
 * checks every stored run's saved state against its records (`state_mismatch`, with run, step and field). With `witnessKeys`
 * (witnesses' cosigner verifier keys), at least `witnesses` of them (default: all) must have a valid
 * cosignature of this checkpoint on the note, else `missing_cosignature`. It returns the problems
 * (`[]` when all hold) and never throws for a checkpoint or a log that fails; a `key` or witness key
 * that is not a verifier key throws `invalid_key`, a bad `witnesses` `invalid_option`.
 *
 * @example
 * const problems = await verifyCheckpoint("audit.jsonl", note, { key: verifierKey, witnessKeys: [w1, w2], witnesses: 1 });
 * for (const { problem, message } of problems) console.log(problem, message);
 */
export async function verifyCheckpoint(
  source: EvidenceSource,
  note: string,
  options: { key: string; witnessKeys?: string[]; witnesses?: number },
): Promise<CheckpointProblem[]> {
  const key = parseVerifierKey(options?.key);
  const quorum = witnessQuorum(options.witnessKeys, options.witnesses);
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(openNoteWith(note, [key]).text);
  } catch (error) {
    return [noteProblem(error)];
  }
  const problems: CheckpointProblem[] = [];
  const missing = quorum === null ? null : missingCosignatures(note, quorum);
  if (missing !== null) problems.push({ problem: "missing_cosignature", message: missing });
  try {
    const log = logOf(source);
    for (const { problem, message, run, seq } of await log.verifyChains()) {
      problems.push({ problem, message, ...(run === null ? {} : { run }), ...(seq === null ? {} : { seq }) });
    }
    const size = await log.size();
    if (size < checkpoint.size) {
      problems.push({
        problem: "log_shorter",
        message: `The log holds ${size} records, fewer than the ${checkpoint.size} the checkpoint signed: records were removed.`,
      });
      return problems;
    }
    // From the leaves, never from stored subtrees: a verifier trusts the records it checked, not a
    // tree that whoever can write the store could have rebuilt to match.
    const { root, problem } = await recomputeTree(log, checkpoint.size, size);
    if (root === null || !sameHash(root, checkpoint.root)) {
      problems.push({
        problem: "root_mismatch",
        message:
          `The log's first ${checkpoint.size} records do not give the root the checkpoint signed: ` +
          "a record was changed, removed or reordered since.",
      });
    }
    if (problem !== null) problems.push({ problem: "root_mismatch", message: problem });
    // A store shows its runs from their saved states: a signed log vouches for what a person is shown
    // only where those states say what the records say.
    const pagesRunIds = (log as Partial<Pick<StoreEvidenceLog, "storedRunIds">>).storedRunIds;
    problems.push(...(await storeStateProblems(source, pagesRunIds?.bind(log))));
  } catch (error) {
    problems.push({ problem: "malformed", message: `The log could not be read: ${messageOf(error)}` });
  }
  return problems;
}

/** The latest checkpoint a store's log keeps (its size and root), or null for a log that keeps none. */
async function latestSigned(log: EvidenceLog): Promise<SignedHead | null> {
  const keeper = log as Partial<Pick<StoreEvidenceLog, "latestCheckpoint">>;
  if (typeof keeper.latestCheckpoint !== "function") return null;
  const latest = await keeper.latestCheckpoint();
  return latest === null ? null : parseCheckpoint(splitNote(latest.note).text);
}

function noteProblem(error: unknown): CheckpointProblem {
  const message = messageOf(error);
  if (isLeashError(error, "unknown_key")) return { problem: "unknown_key", message };
  if (isLeashError(error, "bad_signature")) return { problem: "bad_signature", message };
  if (isLeashError(error, "malformed_note") || isLeashError(error, "malformed_checkpoint")) {
    return { problem: "malformed_checkpoint", message };
  }
  return { problem: "malformed_checkpoint", message: `The checkpoint could not be read: ${message}` };
}
