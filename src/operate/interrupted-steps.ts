import type { RunState } from "../state/run-state.js";
import type { Step } from "../state/saved-run-state.js";

/**
 * The steps of a run whose outcome is `interrupted`: a call of a tool that cannot be repeated safely
 * was in flight when its process stopped, so whether it took effect is unknown and a person must look.
 */
export function interruptedSteps(state: Pick<RunState, "steps">): Step[] {
  return state.steps.filter((step) => step.outcome === "interrupted");
}

/**
 * `1 interrupted step: a person should check whether it took effect` (`2 interrupted steps: … they
 * took effect`), or null for none: the flag `leash runs`, `leash show` and the inbox put on such a run.
 */
export function interruptedText(count: number): string | null {
  if (count === 0) return null;
  return count === 1
    ? "1 interrupted step: a person should check whether it took effect"
    : `${count} interrupted steps: a person should check whether they took effect`;
}
