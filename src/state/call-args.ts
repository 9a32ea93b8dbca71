import type { Json } from "../json/index.js";
import type { Step } from "./saved-run-state.js";

/**
 * The arguments an act step's call takes: those a person's approval put in place (`step.edited`),
 * else those the planner proposed. Every gate and the call itself read them here, so an edited call
 * is checked as it will run.
 */
export function callArgs(step: Step): Json {
  if (step.edited !== undefined) return step.edited.args;
  return step.decision.type === "act" ? step.decision.args : null;
}
