import { assertNever } from "../../errors/index.js";
import type { ModelAssistantMessage, ModelRequest } from "../../models/model-client.js";
import { type HandBackTool, handBackTool } from "../common/hand-back-tool.js";
import { argumentsText, contentText } from "../common/parse-arguments.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import type { ChatBody, ChatMessage, ChatSchema, ChatTool, ChatToolCall } from "./chat-wire.js";

/** What the request body depends on besides the request itself. */
interface ChatBodySettings {
  model: string;
  handBackName: string;
  parallelToolCalls: boolean | undefined;
  stream: boolean;
}

function assistantMessage(
  message: ModelAssistantMessage,
  handBack: HandBackTool | undefined,
  handBackName: string,
): ChatMessage {
  const toolCalls: ChatToolCall[] = message.calls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.tool, arguments: argumentsText(call) },
  }));
  if (message.handBack !== undefined) {
    // The hand-back goes back as the call the model made: wrapped as `{ output }` when the schema was.
    const args = handBack?.wrapped === true ? { output: message.handBack.output } : message.handBack.output;
    toolCalls.push({
      id: message.handBack.id,
      type: "function",
      function: { name: handBack?.name ?? handBackName, arguments: JSON.stringify(args) },
    });
  }
  // The API refuses an assistant message with neither content nor tool calls, and an empty tool_calls list.
  if (toolCalls.length === 0) return { role: "assistant", content: message.text ?? "" };
  return { role: "assistant", content: message.text ?? null, tool_calls: toolCalls };
}

// The API takes only an object schema; `true` (anything) is the empty object schema's equivalent.
const objectSchema = (schema: JsonSchema): ChatSchema =>
  typeof schema === "object" && schema !== null && !Array.isArray(schema) ? schema : {};

/**
 * The Chat Completions body for a model request: the system message first, the conversation in
 * native shapes (assistant tool calls with their ids, one tool message per call id), the tools and
 * the hand-back tool when the request has an output schema.
 *
 * @example
 * const body = chatBody(request, { model: "gpt-5-mini", handBackName: "hand_back", parallelToolCalls: undefined, stream: false });
 */
export function chatBody(request: ModelRequest, settings: ChatBodySettings): ChatBody {
  const handBack = handBackTool(request, settings.handBackName);
  const messages: ChatMessage[] = [{ role: "system", content: request.system }];
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        messages.push({ role: "user", content: message.content });
        break;
      case "assistant":
        messages.push(assistantMessage(message, handBack, settings.handBackName));
        break;
      case "tool":
        messages.push({ role: "tool", tool_call_id: message.callId, content: contentText(message.content) });
        break;
      default:
        assertNever(message, "model message");
    }
  }
  const tools: ChatTool[] = request.tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description === "" ? {} : { description: tool.description }),
      parameters: objectSchema(tool.parameters),
    },
  }));
  if (handBack !== undefined) {
    tools.push({
      type: "function",
      function: {
        name: handBack.name,
        description: handBack.description,
        parameters: objectSchema(handBack.parameters),
      },
    });
  }
  const body: ChatBody = { model: settings.model, messages };
  // The API refuses an empty tools list, and parallel_tool_calls without tools.
  if (tools.length > 0) {
    body.tools = tools;
    if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (settings.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
