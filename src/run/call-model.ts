import { LeashError, isLeashError, messageOf } from "../errors/index.js";
import { digestOfJson, isJsonObject, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { ModelClient, ModelRequest, ModelResponse, Price } from "../models/model-client.js";
import { askGuards, saidLine } from "../guards/ask-guards.js";
import type { GuardResult } from "../guards/ask-guards.js";
import { snapshotFields } from "../decisions/decision.js";
import type { ActiveRun } from "./active-run.js";
import { modelLimitReached } from "./limit-checks.js";
import { raceAbort } from "./race-abort.js";

/** Options of one `ctx.callModel` call. */
export interface CallModelOptions {
  /** Money per million input and output tokens; default `client.price`, else 0. */
  price?: Price;
  /** Whether this call's `model_called` record carries the full request and response (default: the agent's `recordModelText`, else digests only). */
  recordText?: boolean;
}

function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Checks what a model client answered; a malformed response is a clear `model_failed`, not a crash. */
export function parseModelResponse(value: unknown, model: string): ModelResponse {
  const malformed = (problem: string): never => {
    throw new LeashError("model_failed", `Model \`${model}\` gave a malformed response: ${problem}.`);
  };
  let json: Json;
  try {
    json = toJson(value, "the model's response", { maxDepth: MAX_RECORD_DEPTH });
  } catch (error) {
    return malformed(messageOf(error));
  }
  if (!isJsonObject(json)) return malformed("expected an object");
  const { calls, handBack, text, usage } = json;
  if (!Array.isArray(calls)) return malformed("`calls` must be an array");
  const parsedCalls = calls.map((call, index) => {
    if (!isJsonObject(call) || typeof call.tool !== "string")
      return malformed(`\`calls[${index}].tool\` must be a string`);
    return { tool: call.tool, args: call.args ?? {} };
  });
  if (text !== undefined && typeof text !== "string") return malformed("`text` must be a string");
  if (!isJsonObject(usage) || !isTokenCount(usage.inputTokens) || !isTokenCount(usage.outputTokens)) {
    return malformed("`usage` must be { inputTokens, outputTokens } of non-negative integers");
  }
  const response: ModelResponse = {
    calls: parsedCalls,
    usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
  };
  if (handBack !== undefined) response.handBack = handBack;
  if (text !== undefined) response.text = text;
  return response;
}

function checkPrice(price: Price | undefined): Price {
  if (price === undefined) return { input: 0, output: 0 };
  const refuse = (): never => {
    throw new LeashError(
      "invalid_option",
      "Expected `price` to be { input, output }: money per million tokens, finite, from 0 to Number.MAX_SAFE_INTEGER.",
    );
  };
  if (typeof price !== "object" || price === null) return refuse();
  // Each field read once, and only the checked copy used: a getter cannot answer a second read otherwise.
  const { input, output } = snapshotFields(price, ["input", "output"], refuse);
  const ok = (value: unknown): value is number =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
  if (!ok(input) || !ok(output)) return refuse();
  return { input, output };
}

/**
 * The one door to a model for a run: checks the limits, asks the guards before and after, charges
 * the usage and writes a `model_called` record. A block or a limit sets the run's forced end, so the
 * run ends even if the planner catches the error thrown here. Under `maxCost` or `maxTokens` a run
 * makes one model call at a time: a call's usage is known only after it returns, so while one is in
 * flight another is refused at once with `limit_reached` (it does not end the run; the planner may
 * catch it). Refusing rather than waiting means a call that hangs, or a client that calls
 * `ctx.callModel` itself, cannot wedge the run.
 */
export function makeCallModel(run: ActiveRun) {
  const callOne = makeOneCall(run);
  let inFlight = false;
  return async (client: ModelClient, request: ModelRequest, options: CallModelOptions = {}): Promise<ModelResponse> => {
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
}

function makeOneCall(run: ActiveRun) {
  return async (client: ModelClient, request: ModelRequest, options: CallModelOptions): Promise<ModelResponse> => {
    if (run.forcedEnd !== undefined) throw new LeashError("limit_reached", "This run has ended; no more model calls.");
    if (typeof client !== "object" || client === null || typeof client.generate !== "function") {
      throw new LeashError("invalid_option", "Expected `client` to be a ModelClient with a `generate` method.");
    }
    const price = checkPrice(options.price ?? client.price);
    const reached = modelLimitReached(run);
    if (reached !== undefined) {
      run.forcedEnd = { type: "stop", reason: reached };
      throw new LeashError("limit_reached", `The model was not called: the run reached ${reached}.`);
    }
    const sent = toJson(request, "the model request", { maxDepth: MAX_RECORD_DEPTH }) as unknown as ModelRequest;
    const requestDigest = digestOfJson(sent);
    const { signal } = run.controller;
    const before = await askGuards(run.core.guards, "beforeModel", run.work(), signal, structuredClone(sent));
    if (before.type !== "allow") return refuse(run, "beforeModel", before);

    // A model call that ignores its signal cannot keep a cancel from ending the run.
    const answered = await raceAbort(() => client.generate(structuredClone(sent), { signal }), signal);
    let response: ModelResponse;
    try {
      if (answered.type === "aborted") throw new LeashError("limit_reached", "The run was cancelled.");
      if (answered.type === "threw") throw answered.error;
      response = parseModelResponse(answered.value, client.name);
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
    const { inputTokens, outputTokens } = response.usage;
    const cost = (inputTokens * price.input + outputTokens * price.output) / 1e6;
    run.state.usage.tokens += inputTokens + outputTokens;
    run.state.usage.cost += cost;
    run.record("model_called", {
      model: client.name,
      usage: { inputTokens, outputTokens, tokens: inputTokens + outputTokens, cost },
      requestDigest,
      responseDigest: digestOfJson(response),
      ...((options.recordText ?? run.core.recordModelText)
        ? { request: sent as unknown as Json, response: response as unknown as Json }
        : {}),
    });
    const after = await askGuards(run.core.guards, "afterModel", run.work(), signal, structuredClone(response));
    if (after.type !== "allow") return refuse(run, "afterModel", after);
    return structuredClone(response);
  };
}

function refuse(
  run: ActiveRun,
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
