import type { AuditRecord } from "../audit/audit-record.js";
import type { Step } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";

/**
 * Takes back the saved call of a crashed run when its trail says the call never started: a
 * `tool_ended{outcome:"stopped"}` for the open step past the state's head, written by a cancel that
 * landed while the call's intent was saved, with the process killed before the state was saved again.
 * The charge is given back and the step ends `stopped`, as it did then; the call is never started
 * again and no second record is written. Shared by the recovery of a resume and by a cancel of a
 * stored run. Returns the step taken back, if any.
 *
 * @param later the records of the trail past the state's head
 */
export function withdrawCall(run: ActiveRun, later: readonly AuditRecord[]): Step | undefined {
  const { state } = run;
  const inFlight = state.steps.findLast((step) => step.outcome === null);
  if (inFlight === undefined || inFlight.decision.type !== "act" || inFlight.starts !== 1) return undefined;
  const withdrawn = later.find((record) => {
    const data = record.data as { step?: unknown; outcome?: unknown } | null;
    return record.event === "tool_ended" && data?.step === inFlight.index && data?.outcome === "stopped";
  });
  if (withdrawn === undefined) return undefined;
  const error = (withdrawn.data as { error?: { code?: unknown; message?: unknown } }).error;
  const tool = run.tools.get(inFlight.decision.tool);
  state.toolCalls -= 1;
  if (tool !== undefined && tool.cost !== 0) state.usage.cost -= tool.cost;
  const at = state.ran.lastIndexOf(inFlight.decision.tool);
  if (at >= 0) state.ran.splice(at, 1);
  delete inFlight.starts;
  inFlight.outcome = "stopped";
  inFlight.error = {
    code: typeof error?.code === "string" ? error.code : "cancelled",
    message: typeof error?.message === "string" ? error.message : "The call never started.",
  };
  return inFlight;
}
