import { isDeepStrictEqual } from "node:util";
import { LeashError, isLeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { isJsonObject, MAX_JSON_DEPTH, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import { MAX_CALL_ID_LENGTH } from "../decisions/decision.js";
import type { FinishReason, ModelResponse, ModelToolCall, ModelUsage } from "./model-client.js";

const FINISH_REASONS: readonly FinishReason[] = ["stop", "tool_calls", "length", "content_filter", "error", "other"];
const OPTIONAL_COUNTS = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;
const FIELDS = ["calls", "handBack", "handBackId", "text", "usage", "finish", "providerState"] as const;
// A model answer is kept as a step's turn, a few levels below the state and the records.
const ANSWER_DEPTH = MAX_RECORD_DEPTH - 8;

function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * A copy of a value with every string and key made well-formed (a lone surrogate becomes U+FFFD), so
 * that text a model wrote in broken UTF-16 is carried rather than failing the run. Anything that is
 * not plain data is left for the JSON check to refuse.
 */
function wellFormed(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.toWellFormed();
  if (typeof value !== "object" || value === null || depth > ANSWER_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => wellFormed(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  // Defined, not assigned: a `__proto__` key stays an own key, as it is in the JSON.
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key.toWellFormed(), {
      value: wellFormed(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** A value as JSON with its text repaired; `what` names it in the error. */
function json(value: unknown, what: string, maxDepth = ANSWER_DEPTH): Json {
  // Nearly every answer is well formed already: checked as it is, it is copied once, not twice.
  // Only a value the check refuses (a lone surrogate among the reasons) is repaired and checked again.
  try {
    return toJson(value, what, { maxDepth });
  } catch {
    return toJson(wellFormed(value), what, { maxDepth });
  }
}

/**
 * Checks what a model client answered and gives back a clean copy; a malformed response is a clear
 * `model_failed`, not a crash. What a model may well write is carried, not refused: text and
 * arguments with lone surrogates are repaired (U+FFFD), and arguments leash does not hold as values
 * (nested too deep, an integer past 2^53) become their JSON text with `invalidJson`, so the step is
 * refused and the model is told. A
 * call or a hand-back without an id (a client that does not give ids) gets one made from the step
 * (`call_<step>_<n>`, `hand_back_<step>`); ids repeated in one answer are refused, since each must be
 * answered once.
 */
export function parseModelResponse(value: unknown, model: string, step: number): ModelResponse {
  const malformed = (problem: string): never => {
    throw new LeashError("model_failed", `Model \`${model}\` gave a malformed response: ${problem}.`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return malformed("expected an object");
  const fields: Partial<Record<(typeof FIELDS)[number], unknown>> = {};
  try {
    for (const key of FIELDS) fields[key] = (value as Record<string, unknown>)[key];
  } catch (error) {
    return malformed(`reading it threw: ${messageOf(error)}`);
  }
  const guard = <T>(what: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      return malformed(`${what}: ${messageOf(error)}`);
    }
  };
  const { calls, handBack, handBackId, text, usage, finish, providerState } = fields;
  if (!Array.isArray(calls)) return malformed("`calls` must be an array");
  const seen = new Set<string>();
  const parsedCalls = calls.map((call: unknown, index): ModelToolCall => {
    if (!isJsonObject(call) || typeof (call as { tool?: unknown }).tool !== "string")
      return malformed(`\`calls[${index}].tool\` must be a string`);
    const raw = call as { id?: unknown; tool: string; args?: unknown; invalidJson?: unknown };
    const id = raw.id ?? `call_${step}_${index + 1}`;
    if (typeof id !== "string" || id === "" || id.length > MAX_CALL_ID_LENGTH)
      return malformed(`\`calls[${index}].id\` must be a non-empty string of at most ${MAX_CALL_ID_LENGTH} characters`);
    const cleanId = id.toWellFormed();
    if (seen.has(cleanId)) return malformed(`the call id \`${cleanId}\` is given twice`);
    seen.add(cleanId);
    const tool = raw.tool.toWellFormed();
    // Keys in RFC 8785's order: the response's digest is then written by the native JSON writer.
    if (raw.invalidJson !== undefined) {
      if (raw.invalidJson !== true || typeof raw.args !== "string")
        return malformed(`\`calls[${index}].invalidJson\` must be true, with the argument text as \`args\``);
      return { args: raw.args.toWellFormed(), id: cleanId, invalidJson: true, tool };
    }
    const { args, invalidJson } = argumentsOf(raw.args ?? {}, `\`calls[${index}].args\``, guard);
    return invalidJson === true ? { args, id: cleanId, invalidJson, tool } : { args, id: cleanId, tool };
  });
  if (text !== undefined && typeof text !== "string") return malformed("`text` must be a string");
  if (finish !== undefined && !FINISH_REASONS.includes(finish as FinishReason))
    return malformed(`\`finish\` must be one of ${FINISH_REASONS.join(", ")}`);
  const response: ModelResponse = { calls: parsedCalls, usage: parseUsage(usage, malformed) };
  if (handBack !== undefined) {
    const id = handBackId ?? `hand_back_${step}`;
    if (typeof id !== "string" || id === "" || id.length > MAX_CALL_ID_LENGTH)
      return malformed("`handBackId` must be a non-empty string");
    const cleanId = id.toWellFormed();
    if (seen.has(cleanId)) return malformed(`the call id \`${cleanId}\` is given twice`);
    response.handBack = guard("`handBack`", () => json(handBack, "the output handed back"));
    response.handBackId = cleanId;
  } else if (handBackId !== undefined) return malformed("`handBackId` is given without `handBack`");
  if (text !== undefined) response.text = text.toWellFormed();
  if (finish !== undefined) response.finish = finish as FinishReason;
  if (providerState !== undefined)
    response.providerState = guard("`providerState`", () => json(providerState, "the provider state"));
  return response;
}

/**
 * A call's arguments as JSON; arguments deeper than a step carries become their JSON text, marked
 * `invalidJson`, so that the step is refused and the model told, rather than the run failed.
 */
function argumentsOf(
  args: unknown,
  what: string,
  guard: <T>(what: string, read: () => T) => T,
): { args: Json; invalidJson?: true } {
  try {
    return { args: json(args, "the arguments", MAX_JSON_DEPTH) };
  } catch (error) {
    // Plain data that JSON text carries but leash does not hold as a value (nested too deep, an
    // integer past 2^53 such as a 64-bit id) goes on as its text: the step is refused, and the model
    // is told why. Anything else (a function, NaN, a cycle) is the client's fault.
    const text = isLeashError(error, "not_json") ? jsonText(args) : undefined;
    if (text === undefined) {
      return guard(what, () => {
        throw error;
      });
    }
    return { args: text, invalidJson: true };
  }
}

/** The JSON text of plain data that the text carries whole, else `undefined`. */
function jsonText(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(wellFormed(value));
    return typeof text === "string" && isDeepStrictEqual(JSON.parse(text), wellFormed(value)) ? text : undefined;
  } catch {
    return undefined;
  }
}

function parseUsage(usage: unknown, malformed: (problem: string) => never): ModelUsage {
  if (!isJsonObject(usage)) return malformed("`usage` must be { inputTokens, outputTokens } of non-negative integers");
  const counts = usage as Record<string, unknown>;
  if (!isTokenCount(counts.inputTokens) || !isTokenCount(counts.outputTokens)) {
    return malformed("`usage` must be { inputTokens, outputTokens } of non-negative integers");
  }
  const parsed: ModelUsage = { inputTokens: counts.inputTokens, outputTokens: counts.outputTokens };
  for (const key of OPTIONAL_COUNTS) {
    const count = counts[key];
    if (count === undefined) continue;
    if (!isTokenCount(count)) return malformed(`\`usage.${key}\` must be a non-negative integer`);
    parsed[key] = count;
  }
  return parsed;
}
