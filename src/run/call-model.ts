import { LeashError, isLeashError, messageOf } from "../errors/index.js";
import { digestOfJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { ModelClient, ModelRequest, ModelResponse, Price } from "../models/model-client.js";
import type { CallModelOptions } from "../models/planner.js";
import { askGuards } from "./ask-guards.js";
import { saidLine } from "../state/said-line.js";
import type { GuardResult } from "./ask-guards.js";
import { checkPrice } from "../models/check-price.js";
import { copyJson } from "../json/index.js";
import { MAX_USAGE } from "../decisions/decision.js";
import { modelCost } from "../models/model-cost.js";
import { parseModelResponse } from "../models/parse-model-response.js";
import { sealRequest } from "../models/seal-request.js";
import type { LiveRun } from "./live-run.js";
import { budgetModelReached, modelLimitReached } from "./limit-checks.js";
import { raceAbort } from "./race-abort.js";

const ALLOWED: GuardResult = { type: "allow" };

/**
 * The one door to a model for a run: checks the limits, asks the guards before and after, charges
 * the usage and writes a `model_called` record. A block or a limit sets the run's forced end, so the
 * run ends even if the planner catches the error thrown here. Under `maxCost` or `maxTokens` a run
 * makes one model call at a time: a call's usage is known only after it returns, so while one is in
 * flight another is refused at once with `limit_reached` (it does not end the run; the planner may
 * catch it). Refusing rather than waiting means a call that hangs, or a client that calls
 * `ctx.callModel` itself, cannot wedge the run.
 */
export function makeCallModel(run: LiveRun) {
  const callOne = makeOneCall(run);
  let inFlight = false;
  const tracked = async (
    client: ModelClient,
    request: ModelRequest,
    options: CallModelOptions = {},
  ): Promise<ModelResponse> => {
    // Each call is known to the run until it has settled, so that a run cancelled while a model call
    // is in flight waits for the call's own `model_failed` record before it ends.
    const call = guarded(client, request, options);
    run.modelCalls.add(call);
    try {
      return await call;
    } finally {
      run.modelCalls.delete(call);
    }
  };
  const guarded = async (
    client: ModelClient,
    request: ModelRequest,
    options: CallModelOptions,
  ): Promise<ModelResponse> => {
    const { maxCost, maxTokens } = run.state.limits;
    if (maxCost === undefined && maxTokens === undefined) return callOne(client, request, options);
    if (inFlight) {
      throw new LeashError(
        "limit_reached",
        "The model was not called: under maxCost/maxTokens a run makes one model call at a time, and one is in flight.",
      );
    }
    inFlight = true;
    try {
      return await callOne(client, request, options);
    } finally {
      inFlight = false;
    }
  };
  return tracked;
}

function makeOneCall(run: LiveRun) {
  return async (client: ModelClient, request: ModelRequest, options: CallModelOptions): Promise<ModelResponse> => {
    run.assertOpen("limit_reached");
    if (run.forcedEnd !== undefined) throw new LeashError("limit_reached", "This run has ended; no more model calls.");
    if (typeof client !== "object" || client === null || typeof client.generate !== "function") {
      throw new LeashError("invalid_option", "Expected `client` to be a ModelClient with a `generate` method.");
    }
    const price: Price = checkPrice(options.price ?? client.price) ?? { input: 0, output: 0 };
    const reached = modelLimitReached(run);
    if (reached !== undefined) {
      run.forcedEnd = { type: "stop", reason: reached };
      throw new LeashError("limit_reached", `The model was not called: the run reached ${reached}.`);
    }
    // The shared budget, after the run's own limits (whose reason wins when both stop the call).
    const spent = await budgetModelReached(run);
    run.assertOpen("limit_reached");
    if (spent !== undefined) {
      run.forcedEnd = { type: "stop", reason: spent };
      throw new LeashError("limit_reached", `The model was not called: the run's shared budget reached ${spent}.`);
    }
    const sealed = sealRequest(request);
    const { requestDigest } = sealed;
    const { signal } = run.controller;
    // With no guards there is nothing to ask, and no copy of the request to make for them.
    const hasGuards = run.core.guards.length > 0;
    const before = hasGuards
      ? await askGuards(run.core.guards, "beforeModel", run.work(), signal, sealed.copy())
      : ALLOWED;
    run.assertOpen("limit_reached");
    if (before.type !== "allow") return refuse(run, "beforeModel", before);

    const step = run.state.steps.length;
    let writing = true;
    const { feed } = run.core;
    const onText = (delta: string): void => {
      if (writing && run.isOpen && typeof delta === "string" && delta !== "" && feed.wantsText())
        feed.text({ runId: run.state.runId, step, delta });
    };
    // A model call that ignores its signal cannot keep a cancel from ending the run.
    const answered = await raceAbort(() => client.generate(sealed.copy(), { signal, onText }), signal);
    writing = false;
    // An answer that comes after the run ended (a planner that left this call running) is refused:
    // it charges nothing, records nothing, and the state returned at the end stays as it was.
    run.assertOpen("limit_reached");
    let response: ModelResponse;
    try {
      if (answered.type === "aborted") throw new LeashError("limit_reached", "The run was cancelled.");
      if (answered.type === "threw") throw answered.error;
      response = parseModelResponse(answered.value, client.name, step);
    } catch (error) {
      // A failed call charges nothing, but it is recorded before the failure goes on.
      if (signal.aborted) {
        const message = `The call of model \`${client.name}\` was aborted: the run was cancelled.`;
        run.record("model_failed", { model: client.name, code: "limit_reached", message, requestDigest });
        run.forcedEnd ??= { type: "stop", reason: "cancelled" };
        throw new LeashError("limit_reached", message);
      }
      const failure = isLeashError(error, "model_failed")
        ? error
        : new LeashError("model_failed", `Model \`${client.name}\` failed: ${messageOf(error)}`, { cause: error });
      run.record("model_failed", { model: client.name, code: failure.code, message: failure.message, requestDigest });
      throw failure;
    }
    const { usage } = response;
    // Each count is a safe integer, but not every sum is: the sums are capped, and a run so far past
    // any budget stops at the next check.
    const cost = Math.min(MAX_USAGE, modelCost(usage, price));
    const tokens = Math.min(MAX_USAGE, usage.inputTokens + usage.outputTokens);
    run.state.usage.tokens = Math.min(MAX_USAGE, run.state.usage.tokens + tokens);
    run.state.usage.cost = Math.min(MAX_USAGE, run.state.usage.cost + cost);
    run.chargeBudget({ tokens, cost });
    // Built by assignment rather than spreads, which cost a runtime call each while the code is cold.
    const recordedUsage: Record<string, Json> = { ...usage };
    recordedUsage.tokens = tokens;
    recordedUsage.cost = cost;
    const data: Record<string, Json> = {
      model: client.name,
      usage: recordedUsage,
      requestDigest,
      responseDigest: digestOfJson(response),
    };
    if (options.recordText ?? run.core.recordModelText) {
      data.request = sealed.copy() as unknown as Json;
      data.response = copyJson(response) as unknown as Json;
    }
    run.record("model_called", data);
    await run.takeUncharged();
    const after = hasGuards
      ? await askGuards(run.core.guards, "afterModel", run.work(), signal, copyJson(response))
      : ALLOWED;
    run.assertOpen("limit_reached");
    if (after.type !== "allow") return refuse(run, "afterModel", after);
    return copyJson(response);
  };
}

function refuse(
  run: LiveRun,
  point: "beforeModel" | "afterModel",
  verdict: Exclude<GuardResult, { type: "allow" }>,
): never {
  if (verdict.type === "aborted") {
    run.forcedEnd ??= { type: "stop", reason: "cancelled" };
    throw new LeashError("limit_reached", `The run was cancelled while the guards checked the model call (${point}).`);
  }
  if (verdict.type === "failed") {
    run.forcedEnd = { type: "fail", failure: { code: "guard_failed", message: verdict.message } };
    throw new LeashError("guard_failed", verdict.message);
  }
  run.state.said.push(saidLine(point, verdict.guard, verdict.why));
  run.record("guard_blocked", { step: run.state.steps.length, point, guard: verdict.guard, why: verdict.why });
  const message = `${verdict.guard} blocked the model call (${point}): ${verdict.why}`;
  run.forcedEnd = { type: "fail", failure: { code: "model_blocked", message } };
  throw new LeashError("model_blocked", message);
}
