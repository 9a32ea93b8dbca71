import type { CallApprovalRequest } from "../approvals/approval.js";
import { StateError } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { copyJson } from "../json/index.js";
import type { StopReason } from "../limits/limits.js";
import type { Outcome } from "../state/outcomes.js";
import type { Failure, RunState, Step } from "../state/run-state.js";

/** The outcomes of a call the gate refused (it did not run, or its result was kept back). */
export type RefusedOutcome = Exclude<Outcome, "executed" | "finished" | "stopped" | "answer_rejected">;

/** What `session.call` answers: the call ran, was refused, waits for a person, or ended the session. */
export type GateCallAnswer =
  | { status: "executed"; result: Json; edited?: { args: Json; by: string } }
  | { status: "refused"; outcome: RefusedOutcome; message: string }
  | { status: "awaiting_approval"; request: CallApprovalRequest }
  | { status: "stopped"; reason: StopReason }
  | { status: "failed"; failure: Failure };

/**
 * What a session's call answers once its run has ended: a stopped run gives its stop reason and a
 * failed one its failure (so the app's loop ends there too); a completed session takes no more calls.
 */
export function endedAnswer(state: RunState): GateCallAnswer {
  if (state.status === "stopped") return { status: "stopped", reason: state.stopReason ?? "cancelled" };
  if (state.status === "failed" && state.failure !== undefined)
    return { status: "failed", failure: { ...state.failure } };
  throw new StateError("run_ended", `Session \`${state.runId}\` has ended (${state.status}); it takes no more calls.`, {
    details: { runId: state.runId, status: state.status },
  });
}

/**
 * The recorded answer of a settled call: an executed call its result, a refused call its outcome and
 * why; a call a limit kept from starting (or one the session's end closed) the run's end.
 */
export function settledAnswer(state: RunState, step: Step): GateCallAnswer {
  const outcome = step.outcome;
  // A call whose guard threw failed the session: its answer is the session's failure.
  if (step.error?.code === "guard_failed" && state.status === "failed") return endedAnswer(state);
  if (outcome === "executed") {
    // A call a person edited when approving says so: the app's loop learns what ran, and by whose word.
    const edited =
      step.edited === undefined ? {} : { edited: { args: copyJson(step.edited.args), by: step.edited.by } };
    return { status: "executed", result: copyJson(step.result), ...edited };
  }
  if (outcome === null || outcome === "stopped" || outcome === "finished" || outcome === "answer_rejected")
    return endedAnswer(state);
  return { status: "refused", outcome, message: step.error?.message ?? `The call was refused (${outcome}).` };
}
