import type { Approval } from "../approvals/approval.js";
import { StateError } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "./run-store.js";

/**
 * Records an answer in a store's copy of a paused run, by compare-and-set, for every store alike:
 * the answer is checked against the pending request now, and acted on by the next resume.
 */
export async function recordAnswer(
  store: Pick<RunStore, "load" | "save">,
  runId: string,
  approval: Approval,
): Promise<RunState> {
  const state = await store.load(runId);
  if (state === null)
    throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
  if (state.status !== "awaiting_approval" || state.pending === undefined) {
    throw new StateError(
      "stale_state",
      `Run \`${runId}\` is ${state.status}, not awaiting approval: there is nothing to answer.`,
      {
        details: { runId, status: state.status },
      },
    );
  }
  if (state.pending.digest !== approval.digest) {
    throw new StateError(
      "stale_state",
      `The answer is for request ${approval.digest.slice(0, 12)}…, but run \`${runId}\` awaits ${state.pending.digest.slice(0, 12)}….`,
      { details: { runId } },
    );
  }
  const expectedRevision = state.revision;
  // One answer per approver: answering again replaces the earlier answer rather than piling up.
  state.answers = [...state.answers.filter((answer) => answer.approver !== approval.approver), approval.toJSON()];
  state.revision = expectedRevision + 1;
  await store.save(state, { expectedRevision });
  return state;
}
