import type { Approval, ApprovalRequest, LimitApprovalRequest } from "../approvals/approval.js";
import { raiseProblem } from "../approvals/raise-problem.js";
import { StateError } from "../errors/index.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { isRaisableLimit, RAISABLE_LIMITS } from "../limits/limits.js";
import type { RunState } from "../state/run-state.js";
import { answerClaimRecords } from "./decide-answers.js";
import type { decideAnswers } from "./decide-answers.js";

type Decided = Extract<NonNullable<ReturnType<typeof decideAnswers>>, { type: "decided" }>;

/**
 * Refuses, with `invalid_answer` and before anything is written, an answer given to a resume that
 * does not fit the pending request: a raise of a call, a grant of a limit request without a raise, or
 * a raise that is not a finite number above what was used (a whole number for counted limits).
 * Answers recorded by `store.answer` were checked there.
 */
export function refuseUnfitAnswers(state: RunState, pending: ApprovalRequest, approvals: readonly Approval[]): void {
  for (const approval of approvals) {
    if (approval.digest !== pending.digest) continue;
    const problem = raiseProblem(pending, approval);
    if (problem !== undefined)
      throw new StateError("invalid_answer", `${problem} Nothing was written; the run stays paused.`, {
        details: { runId: state.runId, digest: pending.digest, approver: approval.approver },
      });
  }
}

/**
 * What the answers to a limit request decide: an allowed denial wins; otherwise the smallest raise
 * among the allowed grants applies, and its approver is the one who raised it.
 */
export function decideRaise(decided: Decided): { decided: Decided; to: number | undefined } {
  if (!decided.answer.granted) return { decided, to: undefined };
  let smallest = decided.answer;
  for (const grant of decided.grants)
    if (grant.raiseTo !== undefined && (smallest.raiseTo === undefined || grant.raiseTo < smallest.raiseTo))
      smallest = grant;
  return { decided: { ...decided, answer: smallest }, to: smallest.raiseTo };
}

/**
 * The records of a resume's claim of a run paused on a limit: `run_resumed` and each answer's
 * `approval_answered`, marked `kind: "limit"` (they are the run's, not a step's), then, for a raise,
 * `limit_raised { limit, from, to, by }`.
 */
export function raiseClaimRecords(
  state: RunState,
  pending: LimitApprovalRequest,
  decided: Decided,
  to: number | undefined,
): [string, unknown][] {
  const records = answerClaimRecords(pending, decided).map(([event, data]): [string, unknown] => [
    event,
    { ...(data as Record<string, unknown>), kind: "limit" },
  ]);
  if (to !== undefined) {
    const from = state.limits[RAISABLE_LIMITS[pending.limit]] ?? pending.allowed;
    records.push(["limit_raised", { limit: pending.limit, from, to, by: decided.answer.approver }]);
  }
  return records;
}

/**
 * Applies the raises a trail ahead of the state holds (`limit_raised` past the state's head): with a
 * sink separate from the store, a process can die after a resume's claim wrote them and before the
 * state that holds the raise was saved. The trail says the person raised it; recovery goes on so.
 */
export function applyRaisesAhead(state: RunState, later: readonly AuditRecord[]): void {
  for (const record of later) {
    if (record.event !== "limit_raised") continue;
    const data = record.data as { limit?: unknown; to?: unknown } | null;
    const limit = data?.limit;
    const to = data?.to;
    if (typeof limit !== "string" || !isRaisableLimit(limit) || typeof to !== "number" || !Number.isFinite(to))
      continue;
    state.limits = { ...state.limits, [RAISABLE_LIMITS[limit]]: to };
  }
}

/** The run's limit, raised to `to` for this run: saved in its state, so any later resume keeps it. */
export function applyRaise(state: RunState, pending: LimitApprovalRequest, to: number): void {
  state.limits = { ...state.limits, [RAISABLE_LIMITS[pending.limit]]: to };
}
