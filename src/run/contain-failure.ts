import { LeashError, isLeashError, messageOf } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";
import { endRun } from "./run-loop.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const MAX_MESSAGE = 2_000;

/** A message for anything thrown, however odd: never throws, always well-formed text of bounded size. */
function describeThrown(error: unknown): string {
  let text: string;
  try {
    const message: unknown = messageOf(error);
    text = typeof message === "string" ? message : "a value that has no message";
  } catch {
    text = "a value that could not be read";
  }
  text = text.replace(LONE_SURROGATE, "\uFFFD");
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/**
 * The driver's last line: whatever a run's body threw that nothing else caught ends the run `failed`
 * with `internal_error`, a `run_ended` record and a checkpoint. A checkpoint that failed (the store
 * down, a save refused because another process took the run over) is not written over: the run stays
 * as last saved, as after a crash, for `resume` to recover, and the caller gets the store's error;
 * so does a run this process let go (a lease lost), with the reason it was let go.
 * Whatever reaches the caller is a `LeashError`, never a raw error.
 */
export async function containFailure(run: ActiveRun, error: unknown): Promise<RunState> {
  // A run let go (another process holds it now) is not ended here either: nothing more is written.
  if (run.checkpointFailed || !run.isOpen) {
    if (isLeashError(error)) throw error;
    throw new LeashError("store_failed", `Saving run \`${run.state.runId}\` failed: ${describeThrown(error)}`, {
      cause: error,
    });
  }
  const { state } = run;
  run.forcedEnd = undefined;
  state.answer = undefined;
  state.stopReason = undefined;
  const message = `Something inside the run failed unexpectedly: ${describeThrown(error)}`;
  try {
    return await endRun(run, { status: "failed", failure: { code: "internal_error", message } });
  } catch (failed) {
    if (isLeashError(failed)) throw failed;
    throw new LeashError("internal_error", `${message}; saving the failed run failed too: ${describeThrown(failed)}`, {
      cause: failed,
    });
  }
}
