import type { Json } from "../../json/index.js";
import type { FinishReason, ModelResponse, ModelToolCall, ModelUsage } from "../../models/model-client.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { handBackOutput } from "../common/hand-back-tool.js";
import { parseArguments } from "../common/parse-arguments.js";
import { openaiUsage } from "./openai-usage.js";

type Fields = Record<string, unknown>;

const fields = (value: unknown): Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {};

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * A Responses API usage in leash's meaning. OpenAI's `input_tokens` already includes the cached ones
 * and `output_tokens` the reasoning ones, so both are taken as they are; parts that are zero are left
 * out. A count that is there but is not a safe non-negative integer fails the call (`model_failed`); a
 * count left out or `null` is 0.
 */
export function responsesUsage(usage: unknown): ModelUsage {
  return openaiUsage(usage, "openaiResponses", {
    input: "input_tokens",
    output: "output_tokens",
    inputDetails: "input_tokens_details",
    outputDetails: "output_tokens_details",
  });
}

function finishReason(response: Fields, hasCalls: boolean, refused: boolean): FinishReason {
  switch (response.status) {
    case "completed":
      if (hasCalls) return "tool_calls";
      return refused ? "content_filter" : "stop";
    case "incomplete": {
      const reason = fields(response.incomplete_details).reason;
      if (reason === "max_output_tokens") return "length";
      return reason === "content_filter" ? "content_filter" : "other";
    }
    case "failed":
      return "error";
    default:
      return "other";
  }
}

/**
 * Reads a Responses API `Response` object: the text of its messages, its function calls (the
 * hand-back's first call as `handBack`), the usage and why it stopped. When it has reasoning items,
 * the provider state is the output in order: each reasoning item exactly as received, and in place of
 * each message and call a `{ type: "message" }` or `{ type: "function_call", call_id }` marker, so
 * every reasoning item goes back right before the item it came with.
 */
export function readResponsesOutput(response: unknown, handBack: HandBackTool | undefined): ModelResponse {
  const body = fields(response);
  const output = Array.isArray(body.output) ? (body.output as unknown[]) : [];
  const texts: string[] = [];
  const calls: ModelToolCall[] = [];
  // The output in order: reasoning items verbatim, and where each message and call stood.
  const order: Json[] = [];
  let reasoned = false;
  let refused = false;
  const answer: ModelResponse = { calls, usage: responsesUsage(body.usage) };
  for (const value of output) {
    const item = fields(value);
    switch (item.type) {
      case "message":
        order.push({ type: "message" });
        for (const part of Array.isArray(item.content) ? (item.content as unknown[]) : []) {
          const content = fields(part);
          if (content.type === "output_text") texts.push(text(content.text));
          else if (content.type === "refusal") {
            refused = true;
            texts.push(text(content.refusal));
          }
        }
        break;
      case "function_call": {
        const call = parseArguments(text(item.call_id), text(item.name), text(item.arguments));
        order.push({ type: "function_call", call_id: call.id });
        // Only the first hand-back with JSON arguments hands back; anything else is a call, so its id is answered.
        if (
          handBack !== undefined &&
          call.tool === handBack.name &&
          call.invalidJson !== true &&
          answer.handBackId === undefined
        ) {
          answer.handBack = handBackOutput(call.args, handBack);
          answer.handBackId = call.id;
        } else calls.push(call);
        break;
      }
      case "reasoning":
        order.push(value as Json);
        reasoned = true;
        break;
      default:
        break;
    }
  }
  const joined = texts.join("");
  if (joined !== "") answer.text = joined;
  if (reasoned) answer.providerState = order;
  answer.finish = finishReason(body, calls.length > 0 || answer.handBackId !== undefined, refused);
  return answer;
}
