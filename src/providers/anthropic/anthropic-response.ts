import type { Json } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import { LeashError } from "../../errors/index.js";
import type { FinishReason, ModelResponse, ModelToolCall, ModelUsage } from "../../models/model-client.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { handBackOutput } from "../common/hand-back-tool.js";
import { reportedCount, reportedSum, reportedUsage } from "../common/usage-count.js";
import type { AnthropicMessage } from "./anthropic-client.js";

/** One content block of an answer, read: text, a tool call, or opaque state to send back. */
export type ReceivedPart =
  { type: "text"; text: string } | { type: "call"; call: ModelToolCall } | { type: "state"; block: Json };

const STATE_BLOCKS = new Set(["thinking", "redacted_thinking"]);

function failed(message: string): LeashError {
  return new LeashError("model_failed", `anthropicMessages: ${message}`);
}

/**
 * Usage in leash's meaning. Anthropic's `input_tokens` counts only the tokens after the last cache
 * breakpoint, so the input is that plus the cache reads and writes; `output_tokens` already counts the
 * thinking tokens, which Anthropic does not report apart. A count that is there but is not a safe
 * non-negative integer fails the call (`model_failed`); a count left out or `null` is 0.
 */
export function normalizedUsage(usage: unknown): ModelUsage {
  const source = (field: string) => ({ adapter: "anthropicMessages", field: `usage.${field}` });
  const reported = reportedUsage(usage, { adapter: "anthropicMessages", field: "usage" });
  const read = reportedCount(reported?.cache_read_input_tokens, source("cache_read_input_tokens"));
  const write = reportedCount(reported?.cache_creation_input_tokens, source("cache_creation_input_tokens"));
  const input = reportedCount(reported?.input_tokens, source("input_tokens"));
  const normalized: ModelUsage = {
    inputTokens: reportedSum([input, read, write], source("input_tokens")),
    outputTokens: reportedCount(reported?.output_tokens, source("output_tokens")) ?? 0,
  };
  if (read !== undefined) normalized.cacheReadTokens = read;
  if (write !== undefined) normalized.cacheWriteTokens = write;
  return normalized;
}

/** Why the model stopped, in leash's words. */
function finishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason ?? "") {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

/** Reads a content block of a non-streamed answer; blocks leash has no use for are left out. */
function receivedPart(block: unknown): ReceivedPart | undefined {
  if (!isJsonObject(block)) throw failed("a content block of the answer is not an object.");
  if (block.type === "text") return { type: "text", text: typeof block.text === "string" ? block.text : "" };
  if (typeof block.type === "string" && STATE_BLOCKS.has(block.type)) return { type: "state", block };
  if (block.type !== "tool_use") return undefined;
  if (typeof block.id !== "string" || typeof block.name !== "string")
    throw failed("a tool_use block of the answer has no id or name.");
  return { type: "call", call: { id: block.id, tool: block.name, args: block.input ?? {} } };
}

/** The parts of a non-streamed answer. */
export function messageParts(message: AnthropicMessage): ReceivedPart[] {
  if (!Array.isArray(message.content)) throw failed("the answer has no content array.");
  const parts: ReceivedPart[] = [];
  for (const block of message.content) {
    const part = receivedPart(block);
    if (part !== undefined) parts.push(part);
  }
  return parts;
}

/** A `ModelResponse` from an answer's parts, its stop reason and its usage. */
export function modelResponse(
  parts: readonly ReceivedPart[],
  stopReason: string | null | undefined,
  usage: unknown,
  handBack: HandBackTool | undefined,
): ModelResponse {
  const response: ModelResponse = { calls: [], usage: normalizedUsage(usage), finish: finishReason(stopReason) };
  const texts: string[] = [];
  const state: Json[] = [];
  for (const part of parts) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "state") state.push(part.block);
    else if (
      handBack !== undefined &&
      part.call.tool === handBack.name &&
      part.call.invalidJson !== true &&
      response.handBackId === undefined
    ) {
      response.handBack = handBackOutput(part.call.args, handBack);
      response.handBackId = part.call.id;
    } else response.calls.push(part.call);
  }
  const text = texts.join("");
  if (text !== "") response.text = text;
  if (state.length > 0) response.providerState = state;
  return response;
}
