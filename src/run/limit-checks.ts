import type { BudgetStopReason, StopReason } from "../limits/limits.js";
import { budgetModelStop, chargedSpent } from "../stores/budget-info.js";
import type { Tool } from "../tools/tool.js";
import type { LiveRun } from "./live-run.js";

// Money is summed in floating point, where ten charges of 0.1 make 0.9999999999999999: a spend
// within a billionth of the limit counts as at it, so a budget of 1 is 10 charges of 0.1.
const MONEY_TOLERANCE = 1e-9;

/** Whether `spent` has reached `limit`, within rounding. */
function spentReached(spent: number, limit: number): boolean {
  return spent >= limit - limit * MONEY_TOLERANCE;
}

/** Whether `spent` is past `limit`, beyond rounding. */
function spentPast(spent: number, limit: number): boolean {
  return spent > limit + limit * MONEY_TOLERANCE;
}

/** Whether the run was cancelled or ran out of time: checked before every call. */
export function runLimitReached(run: LiveRun): StopReason | undefined {
  if (run.controller.signal.aborted) return "cancelled";
  const { maxDurationMs } = run.state.limits;
  if (maxDurationMs !== undefined && run.elapsedMs() >= maxDurationMs) return "max_duration";
  return undefined;
}

/**
 * Whether a model may be called now: only while the spend is below `maxCost` and `maxTokens`, since
 * a model call's own usage is known only after it.
 */
export function modelLimitReached(run: LiveRun): StopReason | undefined {
  const reached = runLimitReached(run);
  if (reached !== undefined) return reached;
  const { maxCost, maxTokens } = run.state.limits;
  if (maxTokens !== undefined && run.state.usage.tokens >= maxTokens) return "max_tokens";
  if (maxCost !== undefined && spentReached(run.state.usage.cost, maxCost)) return "max_cost";
  return undefined;
}

/**
 * Whether a tool call may be charged and started now: not cancelled, within the running time, and,
 * unless it is a crash-recovery restart of a call already charged, within `maxToolCalls` and with
 * room for its declared cost under `maxCost`. Checked at the gates and again right before the charge,
 * in the same synchronous stretch, so a cancel or a limit that lands while a person decides counts.
 */
export function callLimitReached(run: LiveRun, tool: Tool, restart: boolean): StopReason | undefined {
  const reached = runLimitReached(run);
  if (reached !== undefined || restart) return reached;
  const { maxToolCalls, maxCost } = run.state.limits;
  if (maxToolCalls !== undefined && run.state.toolCalls >= maxToolCalls) return "max_tool_calls";
  if (maxCost !== undefined && spentPast(run.state.usage.cost + tool.cost, maxCost)) return "max_cost";
  return undefined;
}

/**
 * Whether the planner may be asked again: not cancelled, within the running time, fewer than
 * `maxSteps` decisions, the tokens below `maxTokens`, and the spend within `maxCost`. A planner whose
 * last decision was paid for (its `usage` had a cost) is a model, asked only while the spend is below
 * `maxCost`; a free planner is asked until the spend has passed it, so it can still finish a run
 * whose tools spent exactly `maxCost`.
 */
export function plannerLimitReached(run: LiveRun): StopReason | undefined {
  const reached = runLimitReached(run);
  if (reached !== undefined) return reached;
  const { maxSteps, maxTokens, maxCost } = run.state.limits;
  const { steps, usage } = run.state;
  if (maxSteps !== undefined && steps.length >= maxSteps) return "max_steps";
  if (maxTokens !== undefined && usage.tokens >= maxTokens) return "max_tokens";
  if (maxCost !== undefined) {
    const paying = (steps.at(-1)?.decision.usage?.cost ?? 0) > 0;
    if (paying ? spentReached(usage.cost, maxCost) : spentPast(usage.cost, maxCost)) return "max_cost";
  }
  return undefined;
}

/**
 * Whether the run's shared budget lets a model be called now: only while the budget's spend, with
 * what this run spent since it last charged the budget, is below its `maxCost` and `maxTokens`
 * (API.md section 17). Read from the store, so the spend of every run sharing the budget counts; a
 * key with no budget set limits nothing.
 */
export async function budgetModelReached(run: LiveRun): Promise<BudgetStopReason | undefined> {
  const key = run.state.budget;
  const { store } = run.core;
  if (key === undefined || store?.budget === undefined) return undefined;
  const budget = await store.budget(key);
  if (budget === null) return undefined;
  return budgetModelStop({ ...budget, spent: chargedSpent(budget.spent, run.unchargedBudget()) });
}

/**
 * Whether the run's shared budget lets the planner be asked again: a planner whose last decision
 * was paid for (its `usage` had a cost or tokens) is a model, asked only while the budget has room
 * for a model call ({@link budgetModelReached}); a free planner spends nothing of it.
 */
export async function plannerBudgetReached(run: LiveRun): Promise<BudgetStopReason | undefined> {
  const usage = run.state.steps.at(-1)?.decision.usage;
  if (usage === undefined || (usage.cost <= 0 && usage.tokens <= 0)) return undefined;
  return budgetModelReached(run);
}
