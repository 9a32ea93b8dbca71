import { LeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { isJsonObject, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { FinishReason, ModelResponse, ModelToolCall, ModelUsage } from "./model-client.js";

const FINISH_REASONS: readonly FinishReason[] = ["stop", "tool_calls", "length", "content_filter", "error", "other"];
const OPTIONAL_COUNTS = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;
/** The longest call id a model's answer may give. */
const MAX_ID_LENGTH = 512;

function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isId(value: unknown): value is string {
  return typeof value === "string" && value !== "" && value.length <= MAX_ID_LENGTH && value.isWellFormed();
}

/**
 * Checks what a model client answered and gives back a clean copy; a malformed response is a clear
 * `model_failed`, not a crash. A call or a hand-back without an id (a client that does not give ids)
 * gets one made from the step (`call_<step>_<n>`, `hand_back_<step>`); ids repeated in one answer are
 * refused, since each must be answered once.
 */
export function parseModelResponse(value: unknown, model: string, step: number): ModelResponse {
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
  const { calls, handBack, handBackId, text, usage, finish, providerState } = json;
  if (!Array.isArray(calls)) return malformed("`calls` must be an array");
  const seen = new Set<string>();
  const parsedCalls = calls.map((call, index): ModelToolCall => {
    if (!isJsonObject(call) || typeof call.tool !== "string")
      return malformed(`\`calls[${index}].tool\` must be a string`);
    const id = call.id ?? `call_${step}_${index + 1}`;
    if (!isId(id))
      return malformed(`\`calls[${index}].id\` must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
    if (seen.has(id)) return malformed(`the call id \`${id}\` is given twice`);
    seen.add(id);
    const parsed: ModelToolCall = { id, tool: call.tool, args: call.args ?? {} };
    if (call.invalidJson !== undefined) {
      if (call.invalidJson !== true || typeof call.args !== "string")
        return malformed(`\`calls[${index}].invalidJson\` must be true, with the argument text as \`args\``);
      parsed.invalidJson = true;
    }
    return parsed;
  });
  if (text !== undefined && typeof text !== "string") return malformed("`text` must be a string");
  if (finish !== undefined && !FINISH_REASONS.includes(finish as FinishReason))
    return malformed(`\`finish\` must be one of ${FINISH_REASONS.join(", ")}`);
  const response: ModelResponse = { calls: parsedCalls, usage: parseUsage(usage, malformed) };
  if (handBack !== undefined) {
    const id = handBackId ?? `hand_back_${step}`;
    if (!isId(id)) return malformed("`handBackId` must be a non-empty string");
    if (seen.has(id)) return malformed(`the call id \`${id}\` is given twice`);
    response.handBack = handBack;
    response.handBackId = id;
  } else if (handBackId !== undefined) return malformed("`handBackId` is given without `handBack`");
  if (text !== undefined) response.text = text;
  if (finish !== undefined) response.finish = finish as FinishReason;
  if (providerState !== undefined) response.providerState = providerState;
  return response;
}

function parseUsage(usage: Json | undefined, malformed: (problem: string) => never): ModelUsage {
  if (!isJsonObject(usage) || !isTokenCount(usage.inputTokens) || !isTokenCount(usage.outputTokens)) {
    return malformed("`usage` must be { inputTokens, outputTokens } of non-negative integers");
  }
  const parsed: ModelUsage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  for (const key of OPTIONAL_COUNTS) {
    const count = usage[key];
    if (count === undefined) continue;
    if (!isTokenCount(count)) return malformed(`\`usage.${key}\` must be a non-negative integer`);
    parsed[key] = count;
  }
  return parsed;
}
