import type { Approval, ApprovalRequest, LimitApprovalRequest } from "../approvals/approval.js";
import { raiseProblem } from "../approvals/raise-problem.js";
import { StateError } from "../errors/index.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { isBudgetStopReason, isRaisableLimit, RAISABLE_LIMITS } from "../limits/limits.js";
import type { RunState } from "../state/run-state.js";
import type { AgentCore } from "./agent-core.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { BudgetChangeOptions, BudgetLimits } from "../stores/budget-info.js";
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
    // A shared budget's limit is the store's, as the request measured it.
    const limit = pending.limit;
    const from = isBudgetStopReason(limit)
      ? pending.allowed
      : (state.limits[RAISABLE_LIMITS[limit]] ?? pending.allowed);
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

/**
 * The run's limit, raised to `to` for this run: saved in its state, so any later resume keeps it. A
 * shared budget's limit is not the run's: it is raised in the store ({@link raiseBudget}).
 */
export function applyRaise(state: RunState, pending: LimitApprovalRequest, to: number): void {
  const limit = pending.limit;
  if (isBudgetStopReason(limit)) return;
  state.limits = { ...state.limits, [RAISABLE_LIMITS[limit]]: to };
}

/** Each budget stop reason's limit in a budget's limits. */
const BUDGET_LIMIT_KEYS = {
  budget_cost: "maxCost",
  budget_tokens: "maxTokens",
  budget_tool_calls: "maxToolCalls",
} as const;

/** Who raised a shared budget's limit, for the budget's own record. */
export interface BudgetRaiser {
  approver: string;
  note?: string | undefined;
  origin?: AnswerOrigin | undefined;
}

/**
 * Raises the run's shared budget in its store for a person's raise of a budget's limit request, as
 * one atomic change of the store (`store.raiseBudget`): the limit the request names is set to `to`
 * only when it is still set and below `to`, every other limit kept as stored then, recorded as
 * `budget_set` under `budget:<key>` with who raised it and where the answer came from. So a raise
 * never lowers a limit raised further meanwhile, never puts back a limit removed meanwhile, and never
 * drops a limit added meanwhile; run again for the same answer it changes and records nothing. It
 * comes before the resume's claim that records `limit_raised`. Nothing happens for a run's own limit.
 */
export async function raiseBudget(
  core: AgentCore,
  state: RunState,
  pending: LimitApprovalRequest,
  to: number,
  raisedBy: BudgetRaiser,
): Promise<void> {
  const limit = pending.limit;
  const key = state.budget;
  const { store } = core;
  if (!isBudgetStopReason(limit) || key === undefined || store === undefined) return;
  const name = BUDGET_LIMIT_KEYS[limit];
  const { approver, note, origin } = raisedBy;
  // A budget's change records a note of at most 1000 characters; a longer one is in the run's trail.
  const kept = note !== undefined && note.trim() !== "" && note.length <= 1000 ? { note } : {};
  const change: BudgetChangeOptions = { by: approver, ...kept, ...(origin === undefined ? {} : { origin }) };
  if (store.raiseBudget !== undefined) {
    await store.raiseBudget(key, name, to, change);
    return;
  }
  // A store of its own without `raiseBudget`: the same rule, read then written (not atomic there).
  if (store.budget === undefined || store.setBudget === undefined) return;
  const budget = await store.budget(key);
  const now = budget?.[name];
  if (budget === null || now === undefined || now >= to) return;
  const limits: BudgetLimits = {};
  for (const each of ["maxCost", "maxTokens", "maxToolCalls"] as const)
    if (budget[each] !== undefined) limits[each] = budget[each];
  await store.setBudget(key, { ...limits, [name]: to }, change);
}
