import { Decision } from "../decisions/decision.js";
import type { Json } from "../json/json-value.js";
import type { Planner } from "../models/planner.js";
import type { RunState } from "../state/run-state.js";
import type { Step } from "../state/saved-run-state.js";
import { callOfGoal, errorResult } from "./gateway-runs.js";
import type { CallResult } from "./gateway-runs.js";

/**
 * How the gateway's planner runs a call: the call its goal names, then finish with its result when it
 * executed. A call that did not execute (denied, refused, stale, failed, timed out, interrupted) fails
 * the run, with the step's outcome and error in the failure's message, so `leash runs` tells it apart.
 */
export const gatewayPlanner: Planner = (state) => {
  const step = state.steps[0];
  if (step === undefined) {
    const call = callOfGoal(state.goal);
    return Decision.act(call.tool, call.args);
  }
  if (step.outcome === "executed") return Decision.finish(step.result ?? null);
  const why = step.error?.message ?? step.approval?.note;
  throw new Error(`the call ended ${step.outcome ?? "unfinished"}${why === undefined ? "" : `: ${why}`}`);
};

function resultOf(value: Json): CallResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (Array.isArray(value))
    return {
      content: value.map((part) => ({ type: "text", text: typeof part === "string" ? part : JSON.stringify(part) })),
    };
  if (typeof value === "object" && value !== null)
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** The upstream server's own result, its `content` and `structuredContent` as it sent them. */
function passedOn(raw: Record<string, unknown>): CallResult {
  const result: CallResult = { content: raw.content as CallResult["content"] };
  if (raw.structuredContent !== undefined) result.structuredContent = raw.structuredContent as Record<string, unknown>;
  return result;
}

/** Codes of a result leash refused after the tool returned it. */
const REFUSED_RESULT = new Set(["result_too_large", "result_too_deep", "not_json"]);

/**
 * Whether the call reached the upstream server, from the step: `"no"` when nothing was sent (refused
 * before the call, or never started), `"refused"` when the server answered and leash refused the
 * result, `"error"` when the server answered with an error, `"maybe"` when it may have run (a timeout,
 * an interruption, a connection that failed mid-call).
 */
function reached(step: Step | undefined): "no" | "refused" | "error" | "maybe" {
  if (step === undefined || !((step.starts ?? 0) > 0)) return "no";
  const code = step.error?.code ?? "";
  const message = step.error?.message ?? "";
  if (step.outcome === "withheld") return "refused";
  if (step.outcome === "timed_out" || step.outcome === "interrupted") return "maybe";
  if (step.outcome !== "tool_error") return "no";
  if (REFUSED_RESULT.has(code) || message.includes("with a malformed result")) return "refused";
  // Refused by the gateway before a request went out: a tool the server no longer lists, closed tools.
  if (/refuses `|were closed\./.test(message)) return "no";
  if (code === "mcp_failed") return "maybe";
  return "error";
}

/**
 * What the downstream client gets for a run that ended: the upstream result when the call ran (as the
 * server sent it when it ran in this call, else rebuilt from the run's result in the store), else an
 * error result that says why, and whether the call ran upstream: it did (its result refused, or an
 * error from the server), it may have (check before calling again), or it did not.
 */
export function answerOf(state: RunState, raw?: Record<string, unknown>): CallResult {
  const step = state.steps[0];
  if (step?.outcome === "executed")
    return raw !== undefined && Array.isArray(raw.content) ? passedOn(raw) : resultOf(step.result);
  const why = step?.error?.message ?? state.failure?.message ?? state.stopReason ?? "";
  const outcome = step?.outcome ?? state.status;
  const note = step?.approval?.note;
  const by = step?.approval === undefined ? "" : ` by ${step.approval.approver}`;
  const run = `(run ${state.runId})`;
  if (outcome === "approval_denied")
    return errorResult(`leash: the call was denied${by}${note === undefined ? "" : `: ${note}`} ${run}.`);
  const said = `${outcome}${why === "" ? "" : `: ${why}`}`;
  switch (reached(step)) {
    case "refused":
      return errorResult(`leash: the call ran upstream, but its result was refused: ${said} ${run}.`);
    case "error":
      return errorResult(`leash: the call ran upstream and failed: ${said} ${run}.`);
    case "maybe":
      return errorResult(`leash: the call may have run upstream: ${said} ${run}; check before calling it again.`);
    case "no":
      return errorResult(`leash: the call did not run: ${said} ${run}.`);
  }
}
