import { setTimeout as sleep } from "node:timers/promises";
import type { AuditRecord } from "../audit/audit-record.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { RunState } from "../state/run-state.js";
import type { AgentCore } from "./agent-core.js";
import type { Step } from "../state/run-state.js";
import { ranOfSteps } from "../state/ran-of-steps.js";
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
  delete inFlight.starts;
  if (state.gate === true) state.ran = ranOfSteps(state.steps);
  else {
    const at = state.ran.lastIndexOf(inFlight.decision.tool);
    if (at >= 0) state.ran.splice(at, 1);
  }
  inFlight.outcome = "stopped";
  inFlight.error = {
    code: typeof error?.code === "string" ? error.code : "cancelled",
    message: typeof error?.message === "string" ? error.message : "The call never started.",
  };
  return inFlight;
}

/**
 * The start of the open step that the trail holds and the state never saved: a `tool_started` past
 * the state's head, for the open step, numbered one past the starts the state knows, with no
 * `tool_ended` after it. With a separate sink the trail takes a call's start before the state does,
 * and the call begins only once both are durable, so such a start never ran.
 *
 * @param later the records of the trail past the state's head
 */
export function unsavedStart(run: ActiveRun, later: readonly AuditRecord[]): AuditRecord | undefined {
  const open = run.state.steps.findLast((step) => step.outcome === null);
  if (open === undefined || open.decision.type !== "act") return undefined;
  const expected = (open.starts ?? 0) + 1;
  const at = later.findIndex((record) => {
    const data = record.data as { step?: unknown; start?: unknown } | null;
    return record.event === "tool_started" && data?.step === open.index && data.start === expected;
  });
  if (at < 0) return undefined;
  const ended = later.slice(at + 1).some((record) => {
    const data = record.data as { step?: unknown } | null;
    return record.event === "tool_ended" && data?.step === open.index;
  });
  return ended ? undefined : later[at];
}

/**
 * Closes a start that the trail holds and the state never saved ({@link unsavedStart}) without
 * running it: a `tool_ended` with outcome `stopped` that says plainly the call never ran. A first
 * start leaves its step `stopped` (code `withdrawn`); a restart leaves its step open, for the run's
 * end to close as `interrupted`, since an earlier start may have taken effect.
 */
export function withdrawUnsavedStart(run: ActiveRun, step: Step): void {
  const tool = step.decision.type === "act" ? step.decision.tool : null;
  const error = {
    code: "withdrawn",
    message: `The process stopped after the trail took this start of \`${tool}\` and before the state did, so the call never ran; it is not run under that start.`,
  };
  if ((step.starts ?? 0) === 0) {
    step.outcome = "stopped";
    step.error = { ...error };
  }
  run.record("tool_ended", { step: step.index, tool, outcome: "stopped", resultDigest: null, error });
}

/** How long a cancel that lost its claim to another cancel waits for that one to end the run. */
const CANCEL_WAIT_MS = 30_000;

/**
 * After a cancel lost its claim (`stale_state`): the run's state once it has ended, when it has ended
 * or when another cancel claimed it (a `run_resumed{reason:"cancel"}` past the head the loser saw),
 * waiting for that cancel to save the end (polled, up to 30 s). Undefined when another process
 * resumed the run to drive it: the loser's refusal stands.
 */
export async function endedByCancel(core: AgentCore, runId: string, headSeq: number): Promise<RunState | undefined> {
  const { store } = core;
  if (store === undefined) return undefined;
  const deadline = Date.now() + CANCEL_WAIT_MS;
  let pause = 5;
  for (;;) {
    const now = await store.load(runId);
    if (now === null) return undefined;
    if (ENDED_STATUSES.has(now.status)) return now;
    const later = (await core.audit.read(runId)).filter((record) => record.seq > headSeq);
    const claims = later.filter((record) => record.event === "run_resumed");
    const cancelled =
      claims.length > 0 && claims.every((record) => (record.data as { reason?: unknown } | null)?.reason === "cancel");
    if (!cancelled || Date.now() > deadline) return undefined;
    await sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}
