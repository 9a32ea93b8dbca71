import type { Json, JsonObject } from "../../json/index.js";
import type { ModelAssistantMessage, ModelMessage, ModelRequest } from "../../models/model-client.js";
import type { HandBackTool } from "../shared/hand-back-tool.js";
import { argumentsText, contentText } from "../shared/parse-arguments.js";

/** What shapes a Responses API request besides the model request itself. */
export interface ResponsesRequestSettings {
  model: string;
  parallelToolCalls: boolean | undefined;
  stream: boolean;
  store: boolean;
  /** The hand-back tool of this request, when it has an output schema. */
  handBack: HandBackTool | undefined;
  /** The hand-back tool's name for replayed hand-backs when the request has no output schema. */
  handBackName: string;
}

/**
 * The reasoning items an assistant message carries as its provider state, as they were received.
 * Anything that is not an array of objects is not state this adapter gave, and is left out.
 */
function stateItems(message: ModelAssistantMessage): Json[] {
  const state = message.providerState;
  if (!Array.isArray(state)) return [];
  return state.filter((item) => typeof item === "object" && item !== null && !Array.isArray(item));
}

function handBackArguments(output: Json, tool: HandBackTool | undefined): string {
  return JSON.stringify(tool?.wrapped === true ? { output } : output);
}

function assistantItems(message: ModelAssistantMessage, settings: ResponsesRequestSettings): Json[] {
  // Reasoning items go first: the API wants each one followed by the item it came with.
  const items: Json[] = [...stateItems(message)];
  if (message.text !== undefined && message.text !== "")
    items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: message.text }] });
  for (const call of message.calls)
    items.push({ type: "function_call", call_id: call.id, name: call.tool, arguments: argumentsText(call) });
  if (message.handBack !== undefined)
    items.push({
      type: "function_call",
      call_id: message.handBack.id,
      name: settings.handBack?.name ?? settings.handBackName,
      arguments: handBackArguments(message.handBack.output, settings.handBack),
    });
  return items;
}

function inputItems(messages: readonly ModelMessage[], settings: ResponsesRequestSettings): Json[] {
  const items: Json[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        items.push({ role: "user", content: message.content });
        break;
      case "assistant":
        items.push(...assistantItems(message, settings));
        break;
      case "tool":
        items.push({ type: "function_call_output", call_id: message.callId, output: contentText(message.content) });
        break;
    }
  }
  return items;
}

/**
 * The body of a `responses.create` call for a model request. The request is stateless by default
 * (`store: false`): leash replays the whole conversation itself, and asks for reasoning items'
 * encrypted content so they can go back verbatim.
 */
export function responsesBody(request: ModelRequest, settings: ResponsesRequestSettings): JsonObject {
  const tools: Json[] = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
  const handBack = settings.handBack;
  if (handBack !== undefined)
    tools.push({
      type: "function",
      name: handBack.name,
      description: handBack.description,
      parameters: handBack.parameters as Json,
      strict: false,
    });
  const body: JsonObject = {
    model: settings.model,
    instructions: request.system,
    input: inputItems(request.messages, settings),
    store: settings.store,
  };
  if (!settings.store) body.include = ["reasoning.encrypted_content"];
  if (tools.length > 0) body.tools = tools;
  if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (settings.stream) body.stream = true;
  return body;
}
