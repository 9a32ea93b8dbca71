import { assertNever } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import { detachedCopy } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";
import { actStep, endRun, runLoop } from "./run-loop.js";
import type { NextStage } from "./take-over.js";

/**
 * Drives a run a take-over claimed from its next stage: the answered step, the call recovery
 * decided on, the loop, the end, or a note after the end.
 */
export async function continueRun(run: ActiveRun, next: NextStage): Promise<RunState> {
  switch (next.type) {
    case "resume_approval":
      return (await actStep(run, next.step, { restart: false, answer: next.answer.toJSON() })) ?? runLoop(run);
    case "act": {
      const unsaved = next.start === "unsaved";
      // An unsaved start of a call that started before is a restart: it was charged then.
      const restart = next.start === "restart" || (unsaved && (next.step.starts ?? 0) > 0);
      return (await actStep(run, next.step, { restart, unsaved })) ?? runLoop(run);
    }
    case "loop":
      return runLoop(run);
    case "end":
      return endRun(run, next.ending);
    case "note":
      run.record(next.event, next.data);
      await run.checkpoint();
      return detachedCopy(run.state);
    default:
      return assertNever(next, "next stage");
  }
}
