import { MAX_USAGE } from "../decisions/decision.js";
import { isErrorCode, isLeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { copyJson, digestOfJson, toJson } from "../json/index.js";
import type { Failure, Step, StepError } from "../state/run-state.js";
import type { Tool } from "../tools/tool.js";
import type { ToolContext } from "../tools/tool-context.js";
import { askGuards } from "./ask-guards.js";
import { saidLine } from "../state/said-line.js";
import { callArgs } from "../state/call-args.js";
import type { StopReason } from "../limits/limits.js";
import { ranOfSteps } from "../state/ran-of-steps.js";
import type { ActiveRun } from "./active-run.js";
import { runLimitReached } from "./limit-checks.js";
import type { BudgetRefusal } from "../stores/budget-info.js";
import { budgetRefusalOf } from "../stores/budget-info.js";

/**
 * How a call ended the run, when it did: a guard that threw, a cancel or limit before it started, or
 * its shared budget, which had no room for it (the call was not started and its charge is undone).
 */
type CallStop =
  | { type: "failed"; failure: Failure }
  | { type: "stopped"; reason: StopReason }
  | { type: "budget"; refusal: BudgetRefusal };

/**
 * Takes back a call whose intent was saved but that never started (a cancel or the running time
 * landed while the intent was written): the charge is undone and, for a first start, the step is
 * `stopped` with a `tool_ended` record that says the call did not happen. A restart after a crash
 * stays open, for the run's end to close as `interrupted`: its first start may have taken effect.
 */
function withdrawCall(run: ActiveRun, step: Step, tool: Tool, restart: boolean, reason: StopReason): CallStop {
  const { state } = run;
  step.starts = (step.starts ?? 1) - 1;
  if (restart) return { type: "stopped", reason };
  state.toolCalls -= 1;
  if (tool.cost !== 0) state.usage.cost -= tool.cost;
  // The shared budget was charged with the intent: the call never started, so it gets the charge back.
  run.chargeBudget({ cost: -tool.cost, toolCalls: -1 });
  if (step.starts === 0) delete step.starts;
  if (state.gate === true) state.ran = ranOfSteps(state.steps);
  else {
    const at = state.ran.lastIndexOf(tool.name);
    if (at >= 0) state.ran.splice(at, 1);
  }
  step.outcome = "stopped";
  step.error = { code: reason, message: `The run reached ${reason} before the call could start.` };
  run.record("tool_ended", {
    step: step.index,
    tool: tool.name,
    outcome: "stopped",
    resultDigest: null,
    error: { ...step.error },
  });
  return { type: "stopped", reason };
}

type CallEnd = { type: "returned"; value: unknown } | { type: "threw"; error: unknown } | { type: "timed_out" };

function callWithTimeout(tool: Tool, args: Json, context: ToolContext, controller: AbortController): Promise<CallEnd> {
  const call = (async (): Promise<CallEnd> => {
    try {
      return { type: "returned", value: await tool.execute(args as Record<string, Json>, context) };
    } catch (error) {
      return { type: "threw", error };
    }
  })();
  const timeoutMs = tool.timeoutMs;
  if (timeoutMs === undefined) return call;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CallEnd>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`The call of \`${tool.name}\` took longer than ${timeoutMs} ms.`));
      resolve({ type: "timed_out" });
    }, timeoutMs);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Checks what a tool returned, once: JSON ({@link toJson}), nested at most `MAX_JSON_DEPTH` deep, and at
 * most `maxSize` characters of JSON (counting stops once over, so a huge result is never copied whole).
 */
function checkResult(value: unknown, tool: string, maxSize: number): { result: Json } | { error: StepError } {
  try {
    return { result: toJson(value, `the result of tool \`${tool}\``, { maxSize }) };
  } catch (error) {
    const reason = isLeashError(error, "not_json") ? error.details.reason : undefined;
    if (reason === "too_large") {
      const message = `The result of \`${tool}\` is more than the ${maxSize} characters of JSON allowed (maxResultSize).`;
      return { error: { code: "result_too_large", message } };
    }
    return { error: { code: reason === "too_deep" ? "result_too_deep" : "not_json", message: messageOf(error) } };
  }
}

// The code of a thrown LeashError, read once (a getter could answer otherwise on a second read); any
// other thrown value is a plain `tool_error`.
function thrownCode(error: unknown): string {
  if (!isLeashError(error)) return "tool_error";
  try {
    const code: unknown = error.code;
    return isErrorCode(code) ? code : "tool_error";
  } catch {
    return "tool_error";
  }
}

/**
 * Runs one tool call: charges it (unless it is a restart after a crash), makes the intent durable
 * before the call starts, calls the tool under its timeout, records the end, asks the guards'
 * `afterTool`, and makes the result durable. Returns how the run must end when a guard threw, or when
 * a cancel or a limit landed while the intent was saved (the call then never starts).
 */
export async function invokeTool(
  run: ActiveRun,
  step: Step,
  tool: Tool,
  options: { restart: boolean; unsaved: boolean; budgetTaken?: boolean },
): Promise<CallStop | undefined> {
  const { state } = run;
  const { restart, unsaved } = options;
  // What a charge the shared budget refuses puts back: the counts as they were, exactly.
  const before = { toolCalls: state.toolCalls, cost: state.usage.cost, key: step.idempotencyKey };
  // With the store as sink, the budget takes a first start's charge in the intent's save, checked
  // there (the store refuses the whole save when the budget has no room). A restart was charged by
  // its first start; an unsaved start, and a call whose charge was taken on its own (a separate
  // sink), were charged before their start was recorded.
  const checked =
    run.core.storeIsSink && !restart && !unsaved && options.budgetTaken !== true && state.budget !== undefined;
  if (!restart) {
    state.toolCalls += 1;
    state.usage.cost = Math.min(MAX_USAGE, state.usage.cost + tool.cost);
    if (state.gate !== true) state.ran.push(tool.name);
    if (checked) run.chargeBudget({ cost: tool.cost, toolCalls: 1 });
  }
  step.starts = (step.starts ?? 0) + 1;
  // A gate's calls start in the order its loop's people answer them, not in step order: its `ran`
  // is kept in step order, as the steps rebuild it (a session's steps are few).
  if (!restart && state.gate === true) state.ran = ranOfSteps(state.steps);
  // Derived from run, step and approval, never random: every start of this call, in any process,
  // carries the same key, so a target that dedupes can recognise a repeat.
  step.idempotencyKey ??= digestOfJson(["leash.idempotency/1", state.runId, step.index, step.approval?.digest ?? null]);
  // A start the trail holds already (its intent never saved, so it never ran) is the one that runs.
  let started: AuditRecord | undefined;
  if (!unsaved) {
    started = run.record("tool_started", {
      step: step.index,
      tool: tool.name,
      args: callArgs(step),
      start: step.starts,
      idempotencyKey: step.idempotencyKey,
      charged: restart ? 0 : tool.cost,
    });
  }
  // The intent is durable before the call: after a crash, resume knows a call may have happened.
  try {
    await run.checkpoint(checked ? { budgetCheck: "tool" } : {});
  } catch (error) {
    const refusal = checked ? budgetRefusalOf(error) : undefined;
    if (refusal === undefined || started === undefined) throw error;
    // The budget had no room: nothing was written, so the start and the run's own charge of it
    // are taken back as if never made, and the step is left open for the caller to close or ask about.
    run.takeBack(started);
    state.toolCalls = before.toolCalls;
    state.usage.cost = before.cost;
    step.starts = (step.starts ?? 1) - 1;
    if (step.starts === 0) delete step.starts;
    if (state.gate === true) state.ran = ranOfSteps(state.steps);
    else {
      const at = state.ran.lastIndexOf(tool.name);
      if (at >= 0) state.ran.splice(at, 1);
    }
    if (before.key === undefined) delete step.idempotencyKey;
    run.chargeBudget({ cost: -tool.cost, toolCalls: -1 });
    return { type: "budget", refusal };
  }
  // A cancel or the running time may have landed while the intent was written: checked again here,
  // with nothing awaited before the call starts.
  const reached = runLimitReached(run);
  if (reached !== undefined) return withdrawCall(run, step, tool, restart, reached);

  // A call's own controller exists only to time it out; without a timeout the run's signal is the
  // call's signal (cancelling the run aborts it), which saves an AbortController and a listener per call.
  const own = tool.timeoutMs !== undefined;
  const controller = own ? new AbortController() : run.controller;
  const onAbort = (): void => controller.abort(run.controller.signal.reason);
  if (own) run.controller.signal.addEventListener("abort", onAbort, { once: true });
  const context: ToolContext = {
    runId: state.runId,
    step: step.index,
    principal: state.principal,
    signal: controller.signal,
    idempotencyKey: step.idempotencyKey,
    // The revision the intent was saved at: every claim bumps it by compare-and-set, so a later
    // claimer's calls always carry a larger token than a stalled process's late call.
    fencingToken: state.revision,
  };
  let end: CallEnd;
  try {
    // The arguments are checked JSON: a JSON copy is what structuredClone gives, at a fraction of its cost.
    end = await callWithTimeout(tool, copyJson(callArgs(step)), context, controller);
  } finally {
    if (own) run.controller.signal.removeEventListener("abort", onAbort);
  }

  let result: Json = null;
  if (end.type === "returned") {
    const checked = checkResult(end.value, tool.name, run.core.maxResultSize);
    if ("error" in checked) {
      step.outcome = "tool_error";
      step.error = checked.error;
    } else {
      result = checked.result;
      step.outcome = "executed";
    }
  } else if (end.type === "threw") {
    step.outcome = "tool_error";
    step.error = { code: thrownCode(end.error), message: `\`${tool.name}\` failed: ${messageOf(end.error)}` };
  } else {
    step.outcome = "timed_out";
    step.error = { code: "timed_out", message: `\`${tool.name}\` took longer than ${tool.timeoutMs} ms.` };
  }
  const ended: Record<string, Json> = {
    step: step.index,
    tool: tool.name,
    outcome: step.outcome,
    resultDigest: step.outcome === "executed" ? digestOfJson(result) : null,
  };
  if (step.error !== undefined) ended.error = step.error as unknown as Json;
  run.record("tool_ended", ended);

  let failure: Failure | undefined;
  let stop: CallStop | undefined;
  if (step.outcome === "executed") {
    const { guards } = run.core;
    const verdict =
      guards.length === 0
        ? ({ type: "allow" } as const)
        : await askGuards(guards, "afterTool", run.work(), run.controller.signal, tool.describe(), copyJson(result));
    if (verdict.type === "aborted") {
      // The call ran and is counted; what it answered was never vetted, so it is kept back.
      step.outcome = "withheld";
      step.error = { code: "cancelled", message: "The run was cancelled while the guards checked the result." };
      stop = { type: "stopped", reason: "cancelled" };
    } else if (verdict.type === "allow") {
      step.result = result;
    } else if (verdict.type === "block") {
      // The tool ran and is counted, but what it answered never reaches the planner, a model or the
      // saved state: only why it was kept back.
      step.outcome = "withheld";
      step.error = { code: "withheld", message: `${verdict.guard}: ${verdict.why}` };
      state.said.push(saidLine("afterTool", verdict.guard, verdict.why, tool.name));
      run.record("guard_blocked", {
        step: step.index,
        point: "afterTool",
        guard: verdict.guard,
        why: verdict.why,
        tool: tool.name,
      });
    } else {
      step.outcome = "withheld";
      step.error = { code: "guard_failed", message: verdict.message };
      failure = { code: "guard_failed", message: verdict.message };
    }
  }
  await run.checkpoint();
  return failure === undefined ? stop : { type: "failed", failure };
}
