import type { StopReason } from "../limits/limits.js";
import type { ActiveRun } from "./active-run.js";

/** Whether the run was cancelled or ran out of time: checked before every call. */
export function runLimitReached(run: ActiveRun): StopReason | undefined {
  if (run.controller.signal.aborted) return "cancelled";
  const { maxDurationMs } = run.state.limits;
  if (maxDurationMs !== undefined && run.elapsedMs() >= maxDurationMs) return "max_duration";
  return undefined;
}

/**
 * Whether a model may be called now: only while the spend is below `maxCost` and `maxTokens`, since
 * a model call's own usage is known only after it.
 */
export function modelLimitReached(run: ActiveRun): StopReason | undefined {
  const reached = runLimitReached(run);
  if (reached !== undefined) return reached;
  const { maxCost, maxTokens } = run.state.limits;
  if (maxTokens !== undefined && run.state.usage.tokens >= maxTokens) return "max_tokens";
  if (maxCost !== undefined && run.state.usage.cost >= maxCost) return "max_cost";
  return undefined;
}
