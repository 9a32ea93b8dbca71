import type { LimitApprovalRequest } from "../approvals/approval.js";
import { limitDigest } from "../approvals/approval-digest.js";
import { asksToRaise, isBudgetStopReason, RAISABLE_LIMITS } from "../limits/limits.js";
import type { RaisableLimit, RequestedLimit, StopReason } from "../limits/limits.js";
import type { RunState } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";
import { requestHistory } from "./approval-gate.js";

/** What a limit has used so far: the spend, the tokens, the tool calls started, the decisions made. */
export function usedOf(state: RunState, limit: RaisableLimit): number {
  switch (limit) {
    case "max_cost":
      return state.usage.cost;
    case "max_tokens":
      return state.usage.tokens;
    case "max_tool_calls":
      return state.toolCalls;
    case "max_steps":
      return state.steps.length;
  }
}

/**
 * The limit a stop reason names, when the run asks a person to raise it rather than stop
 * (`limits.askToRaise`; a shared budget's stop when it names `"budget"`). A gate's session never
 * asks: the framework that drives it has no pause to give, so its limits stop it as they always did.
 */
export function limitToAsk(state: RunState, reason: StopReason): RequestedLimit | undefined {
  if (state.gate === true || !asksToRaise(state.limits, reason)) return undefined;
  if (isBudgetStopReason(reason)) return state.budget === undefined ? undefined : reason;
  return state.limits[RAISABLE_LIMITS[reason]] === undefined ? undefined : reason;
}

/** What a shared budget's limit has used and allows, as its store said when it stopped the run. */
export interface BudgetMeasure {
  used: number;
  allowed: number;
}

/**
 * The request a run makes when a limit named in `askToRaise` would stop it, at `step` (the step the
 * limit kept from starting, or the next decision's index for a limit met before the planner), bound
 * to what was used, what is allowed and the history before that step. A shared budget's limit is
 * measured by its store (`budget`: what was used and is allowed there, not in this run).
 */
export function limitRequest(
  run: ActiveRun,
  limit: RequestedLimit,
  step: number,
  budget?: BudgetMeasure,
): { request: LimitApprovalRequest; history: string } {
  const { state } = run;
  const own = isBudgetStopReason(limit) ? undefined : limit;
  const used = own === undefined ? (budget?.used ?? 0) : usedOf(state, own);
  const allowed = own === undefined ? (budget?.allowed ?? 0) : (state.limits[RAISABLE_LIMITS[own]] ?? 0);
  const history = requestHistory(state, { index: step, openAtRequest: undefined });
  const digest = limitDigest({ runId: state.runId, step, limit, used, allowed, historyDigest: history });
  const request: LimitApprovalRequest = {
    kind: "limit",
    runId: state.runId,
    step,
    limit,
    used,
    allowed,
    digest,
    requestedAt: run.now(),
  };
  return { request, history };
}
