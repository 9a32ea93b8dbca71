import { raceAbort } from "./race-abort.js";
import { isLeashError, messageOf } from "../errors/index.js";
import { copyJson, MAX_JSON_DEPTH, toJson } from "../json/index.js";
import type { StopReason } from "../limits/limits.js";
import type { Failure, Step } from "../state/run-state.js";
import type { Outcome } from "../state/outcomes.js";
import type { Tool } from "../tools/tool.js";
import { hasTypedCheck } from "../tools/tool.js";
import type { ActDecision } from "../decisions/decision.js";
import { argumentsRefusal } from "../decisions/decision.js";
import { askGuards } from "./ask-guards.js";
import { saidLine } from "../state/said-line.js";
import { callArgs } from "../state/call-args.js";
import type { ActiveRun } from "./active-run.js";
import { callLimitReached } from "./limit-checks.js";

/** What the gates decided about one act step. */
type GateResult =
  | { type: "pass"; tool: Tool }
  | { type: "deny"; outcome: Outcome; code: string; message: string }
  | { type: "stop"; reason: StopReason }
  | { type: "fail"; failure: Failure };

/**
 * The gates an act decision passes before its tool may start, in order, and again at every resume:
 * its argument text is JSON (a model's call), the tool exists, its arguments are valid, its effect is allowed, its scopes are granted, the
 * guards' `beforeTool` allows it, and the limits leave room for it. Approval comes after, separately,
 * because it can pause the run.
 *
 * @param restart a crash-recovery restart of a call already charged: the call limits are not checked again.
 */
export async function passGates(run: ActiveRun, step: Step, restart: boolean): Promise<GateResult> {
  const decision = step.decision as ActDecision;
  // An edited call is checked as it will run: the approver's arguments, not the proposed ones.
  const args = callArgs(step);
  const { policy, guards, maxArgumentsSize } = run.core;
  // Argument text that is not JSON is refused first, whatever it names: a model that garbled its
  // hand-back (a tool only the adapter offers) is told what was wrong with it, not that no such tool exists.
  if (decision.invalidJson === true && step.edited === undefined) return refusedText(decision);
  const found = run.tools.get(decision.tool);
  if (found === undefined) {
    const known = run.tools.names();
    return {
      type: "deny",
      outcome: "unknown_tool",
      code: "unknown_tool",
      message: `No tool named \`${decision.tool}\`${known.length > 0 ? `; the tools are ${known.join(", ")}` : ""}.`,
    };
  }
  // Arguments are validated before policy and approval: nobody is asked to approve a call that could
  // never run, and a policy never reasons about arguments that are not what the schema says.
  // The canonical form differs from JSON.stringify's only in key order, so their lengths are equal,
  // and JSON.stringify is the cheaper of the two.
  // An edit was checked as JSON when its approval was made; only proposed arguments carry a refusal.
  const refusal = step.edited === undefined ? argumentsRefusal(decision) : undefined;
  if (refusal !== undefined) {
    return {
      type: "deny",
      outcome: "invalid_arguments",
      code: "arguments_too_deep",
      message: `The arguments of \`${found.name}\` were refused: ${refusal}`,
    };
  }
  const size = JSON.stringify(args).length;
  if (size > maxArgumentsSize) {
    return {
      type: "deny",
      outcome: "invalid_arguments",
      code: "arguments_too_large",
      message: `The arguments of \`${found.name}\` are ${size} characters of JSON, more than the ${maxArgumentsSize} allowed.`,
    };
  }
  const validation = found.validator.validate(args);
  if (!validation.valid) {
    return {
      type: "deny",
      outcome: "invalid_arguments",
      code: "invalid_arguments",
      message: `Invalid arguments for \`${found.name}\`: ${validation.errors.join("; ")}.`,
    };
  }
  // Raced against the run's signal: a schema check that never settles cannot keep a cancel out. A
  // tool with no typed schema has no such check, and no promise is awaited for it.
  const checked = hasTypedCheck(found)
    ? await raceAbort(() => found.typedProblems(args), run.controller.signal)
    : run.controller.signal.aborted
      ? ({ type: "aborted" } as const)
      : ({ type: "settled", value: [] } as const);
  if (checked.type === "aborted") return { type: "stop", reason: "cancelled" };
  const problems =
    checked.type === "settled" ? checked.value : [`the schema's check threw: ${messageOf(checked.error)}`];
  if (problems.length > 0) {
    return {
      type: "deny",
      outcome: "invalid_arguments",
      code: "invalid_arguments",
      message: `Invalid arguments for \`${found.name}\`: ${problems.join("; ")}.`,
    };
  }
  if (!policy.allowsEffect(found.effect)) {
    return {
      type: "deny",
      outcome: "effect_denied",
      code: "effect_denied",
      message: `The policy does not allow ${found.effect} tools, and \`${found.name}\` is one.`,
    };
  }
  const missing = policy.missingScopes(found.scopes);
  if (missing.length > 0) {
    return {
      type: "deny",
      outcome: "scope_denied",
      code: "scope_denied",
      message: `\`${found.name}\` needs the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, which the policy does not grant.`,
    };
  }
  const verdict =
    guards.length === 0
      ? ({ type: "allow" } as const)
      : await askGuards(guards, "beforeTool", run.work(), run.controller.signal, found.describe(), copyJson(args));
  if (verdict.type === "aborted") return { type: "stop", reason: "cancelled" };
  if (verdict.type === "failed") return { type: "fail", failure: { code: "guard_failed", message: verdict.message } };
  if (verdict.type === "block") {
    run.state.said.push(saidLine("beforeTool", verdict.guard, verdict.why, found.name));
    run.record("guard_blocked", {
      step: step.index,
      point: "beforeTool",
      guard: verdict.guard,
      why: verdict.why,
      tool: found.name,
    });
    return { type: "deny", outcome: "blocked", code: "blocked", message: `${verdict.guard}: ${verdict.why}` };
  }
  const reached = callLimitReached(run, found, restart);
  if (reached !== undefined) return { type: "stop", reason: reached };
  return { type: "pass", tool: found };
}

/**
 * Why argument text a model gave as text (`invalidJson`) is refused: it is not JSON (`invalid_json`),
 * or it is JSON that leash does not hold as a value (`arguments_too_deep`, or a number past 2^53:
 * `invalid_arguments`).
 */
function refusedText(decision: ActDecision): GateResult {
  const deny = (code: string, message: string): GateResult => ({
    type: "deny",
    outcome: "invalid_arguments",
    code,
    message: `The arguments of \`${decision.tool}\` ${message}`,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof decision.args === "string" ? decision.args : JSON.stringify(decision.args));
  } catch (error) {
    return deny("invalid_json", `are not valid JSON: ${messageOf(error)}`);
  }
  try {
    toJson(parsed, "the arguments");
  } catch (error) {
    if (isLeashError(error, "not_json") && error.details.reason === "too_deep")
      return deny("arguments_too_deep", `are nested deeper than ${MAX_JSON_DEPTH} levels.`);
    return deny("invalid_arguments", `hold a value leash does not carry: ${messageOf(error)}`);
  }
  return deny("invalid_json", "were given as text that is not the arguments' JSON.");
}
