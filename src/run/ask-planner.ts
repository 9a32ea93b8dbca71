import type { Decision } from "../decisions/decision.js";
import { MAX_USAGE, parseDecision } from "../decisions/decision.js";
import { isLeashError, messageOf } from "../errors/index.js";
import type { Failure } from "../state/run-state.js";
import type { PlannerContext } from "../models/planner.js";
import type { ActiveRun } from "./active-run.js";
import type { ForcedEnd } from "./live-run.js";
import { raceAbort } from "./race-abort.js";

/** What asking the planner gave: a checked decision, a failure, or an end forced inside `callModel`. */
type PlannerResult =
  { type: "decision"; decision: Decision } | { type: "fail"; failure: Failure } | { type: "forced"; end: ForcedEnd };

/**
 * Asks the planner for the next decision, on a fresh copy of the state, and checks what it returns.
 * A decision's own `usage` (model calls made outside `callModel`) is charged here.
 */
export async function askPlanner(run: ActiveRun): Promise<PlannerResult> {
  const context: PlannerContext = {
    signal: run.controller.signal,
    callModel: run.callModel,
  };
  if (run.state.principal !== undefined) context.principal = run.state.principal;
  if (run.skill !== undefined) {
    const { skill } = run.skill;
    context.skill = { name: skill.name, description: skill.description ?? "" };
    if (skill.output !== undefined) context.skill.output = structuredClone(skill.output);
  }
  // A planner that ignores its signal cannot keep a cancel from ending the run: its late answer is dropped.
  const asked = await raceAbort(
    () => run.core.planner(run.state.copy(), run.tools.describe(), context),
    run.controller.signal,
  );
  if (asked.type === "aborted") {
    // A model call cut short by the same abort records its `model_failed` first; it settles at once.
    await Promise.allSettled(run.modelCalls);
    return { type: "forced", end: run.forcedEnd ?? { type: "stop", reason: "cancelled" } };
  }
  if (asked.type === "threw") {
    if (run.forcedEnd !== undefined) return { type: "forced", end: run.forcedEnd };
    if (run.controller.signal.aborted) return { type: "forced", end: { type: "stop", reason: "cancelled" } };
    const code = isLeashError(asked.error, "model_failed") ? "model_failed" : "planner_failed";
    return { type: "fail", failure: { code, message: `The planner failed: ${messageOf(asked.error)}` } };
  }
  const raw: unknown = asked.value;
  // A block or a limit inside callModel ends the run even when the planner caught the error.
  if (run.forcedEnd !== undefined) return { type: "forced", end: run.forcedEnd };
  let decision: Decision;
  try {
    decision = parseDecision(raw, { maxAnswerSize: run.core.maxResultSize });
  } catch (error) {
    return { type: "fail", failure: { code: "invalid_decision", message: messageOf(error) } };
  }
  if (decision.usage !== undefined) {
    run.state.usage.tokens = Math.min(MAX_USAGE, run.state.usage.tokens + decision.usage.tokens);
    run.state.usage.cost = Math.min(MAX_USAGE, run.state.usage.cost + decision.usage.cost);
    run.chargeBudget({ tokens: decision.usage.tokens, cost: decision.usage.cost });
  }
  return { type: "decision", decision };
}
