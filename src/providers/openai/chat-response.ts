import { LeashError } from "../../errors/index.js";
import type { FinishReason, ModelResponse, ModelToolCall, ModelUsage } from "../../models/model-client.js";
import { type HandBackTool, handBackOutput } from "../common/hand-back-tool.js";
import { parseArguments } from "../common/parse-arguments.js";
import { openaiUsage } from "./openai-usage.js";

/** A tool call as the model wrote it, its arguments still text. */
export interface ChatRawCall {
  /** Undefined when the server gave none (some compatible servers): the core then makes one per step. */
  id: string | undefined;
  name: string;
  arguments: string;
}

/** An answer read from the wire, before it becomes a {@link ModelResponse}. */
export interface ChatAnswer {
  text: string;
  calls: ChatRawCall[];
  finishReason: unknown;
  usage: unknown;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/**
 * Normalizes Chat Completions usage: `prompt_tokens` already counts the cached tokens and
 * `completion_tokens` the reasoning ones, so they are leash's input and output as they are; the parts
 * are kept when the provider reports them above zero. A count that is there but is not a safe
 * non-negative integer fails the call (`model_failed`); a count left out or `null` is 0.
 *
 * @example
 * chatUsage({ prompt_tokens: 1200, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1000 } });
 * // { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1000 }
 */
export function chatUsage(usage: unknown): ModelUsage {
  return openaiUsage(usage, "openaiChat", {
    input: "prompt_tokens",
    output: "completion_tokens",
    inputDetails: "prompt_tokens_details",
    outputDetails: "completion_tokens_details",
  });
}

/** Maps a Chat Completions `finish_reason` to the port's. */
function chatFinish(reason: unknown): FinishReason {
  switch (reason) {
    case "stop":
    case "tool_calls":
    case "length":
    case "content_filter":
      return reason;
    default:
      return "other";
  }
}

/**
 * The port's response for an answer: its calls with parsed arguments, the hand-back call (the first
 * one with valid arguments) as `handBack`, its text, finish reason and usage.
 */
export function modelResponse(answer: ChatAnswer, handBack: HandBackTool | undefined): ModelResponse {
  const calls: ModelToolCall[] = [];
  const response: ModelResponse = { calls, usage: chatUsage(answer.usage) };
  let handedBack = false;
  for (const raw of answer.calls) {
    const call = parseArguments(raw.id ?? "", raw.name, raw.arguments);
    // A call without an id goes to the core without one, which gives it an id unique in the run.
    if (raw.id === undefined) delete (call as Partial<ModelToolCall>).id;
    // A hand-back whose text is not JSON stays a call, so it is refused and answered like any other.
    if (handBack !== undefined && raw.name === handBack.name && call.invalidJson !== true && !handedBack) {
      handedBack = true;
      response.handBack = handBackOutput(call.args, handBack);
      if (raw.id !== undefined) response.handBackId = raw.id;
    } else {
      calls.push(call);
    }
  }
  if (answer.text !== "") response.text = answer.text;
  response.finish = chatFinish(answer.finishReason);
  return response;
}

function failed(message: string): never {
  throw new LeashError("model_failed", `OpenAI Chat Completions: ${message}`);
}

/** Reads a non-streamed chat completion into an answer, refusing one that has no choice. */
export function completionAnswer(completion: unknown): ChatAnswer {
  const choices = record(completion)?.choices;
  const choice = Array.isArray(choices) ? record(choices[0]) : undefined;
  const message = record(choice?.message);
  if (choice === undefined || message === undefined) return failed("the completion has no choice with a message.");
  const calls: ChatRawCall[] = [];
  const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  for (const value of toolCalls) {
    const toolCall = record(value);
    const fn = record(toolCall?.function);
    if (toolCall === undefined || fn === undefined || typeof fn.name !== "string") continue;
    calls.push({
      id: typeof toolCall.id === "string" && toolCall.id !== "" ? toolCall.id : undefined,
      name: fn.name,
      arguments: typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    });
  }
  const content = typeof message.content === "string" ? message.content : "";
  const refusal = typeof message.refusal === "string" ? message.refusal : "";
  return {
    text: content !== "" ? content : refusal,
    calls,
    finishReason: choice.finish_reason,
    usage: record(completion)?.usage,
  };
}
