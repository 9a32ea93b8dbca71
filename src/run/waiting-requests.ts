import type { CallApprovalRequest } from "../approvals/approval.js";
import type { RunState, Step } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";
import { requestHistory } from "./approval-gate.js";

/**
 * Keeps `pending` (and the history it is bound to) on the oldest request of a gate session's
 * waiting list, or clears both when nothing waits.
 */
function pendOldest(state: RunState): void {
  const oldest = state.waiting?.[0];
  if (oldest === undefined) {
    state.waiting = undefined;
    state.pending = undefined;
    state.pendingHistory = undefined;
    return;
  }
  state.pending = oldest;
  const step = state.steps[oldest.step];
  state.pendingHistory = step === undefined ? undefined : requestHistory(state, step);
}

/**
 * Records a gate session's request for a person and makes it durable: it joins `state.waiting`
 * (oldest first; `pending` is the oldest), with its `approval_requested` record. The session's run
 * stays `running`: its other calls go on while this one waits.
 */
export async function recordWaiting(run: ActiveRun, request: CallApprovalRequest, history: string): Promise<void> {
  const { state } = run;
  state.waiting = [...(state.waiting ?? []).filter((item) => item.step !== request.step), request];
  pendOldest(state);
  run.record("approval_requested", { ...request, history });
  await run.checkpoint();
}

/**
 * Takes a step's request out of what waits, once the step is decided: a gate session's waiting list
 * loses it (and `pending` moves to the next oldest); any other run's pending request is cleared.
 */
export function settleRequest(state: RunState, step: Step): void {
  if (state.gate !== true) {
    state.pending = undefined;
    state.pendingHistory = undefined;
    return;
  }
  if (state.waiting === undefined) return;
  state.waiting = state.waiting.filter((item) => item.step !== step.index);
  pendOldest(state);
}

/** The request of a gate session's step that waits for a person, if it does. */
export function waitingRequest(state: RunState, step: Step): CallApprovalRequest | undefined {
  return state.waiting?.find((item) => item.step === step.index);
}
