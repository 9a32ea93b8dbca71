import type { Json, JsonObject } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type { ModelAssistantMessage, ModelMessage, ModelRequest } from "../../models/model-client.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { argumentsText, contentText } from "../common/parse-arguments.js";

/** What shapes a Responses API request besides the model request itself. */
interface ResponsesRequestSettings {
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
 * Whether a value of a message's provider state is a reasoning item this adapter kept: an object of
 * type `reasoning` with its `id` and `summary`, as the Responses API gives them. State from another
 * adapter (an Anthropic thinking block, an AI SDK reasoning part) is not, and the API would refuse it.
 */
function isReasoningItem(value: Json): value is JsonObject {
  return (
    isJsonObject(value) && value.type === "reasoning" && typeof value.id === "string" && Array.isArray(value.summary)
  );
}

function handBackArguments(output: Json, tool: HandBackTool | undefined): string {
  return JSON.stringify(tool?.wrapped === true ? { output } : output);
}

/**
 * The items of an answer, in the order the model gave them. Its provider state lists the output in
 * order: reasoning items verbatim, and a place holder for each message and function call (see
 * `stateOfOutput`), so each reasoning item goes back right before the item it was issued with, as the
 * API requires. What the state does not place (or all of it, for state that is not this adapter's)
 * follows in the usual order: the text, then the calls, then the hand-back.
 */
function assistantItems(message: ModelAssistantMessage, settings: ResponsesRequestSettings): Json[] {
  const calls = new Map<string, Json>();
  for (const call of message.calls)
    calls.set(call.id, { type: "function_call", call_id: call.id, name: call.tool, arguments: argumentsText(call) });
  if (message.handBack !== undefined)
    calls.set(message.handBack.id, {
      type: "function_call",
      call_id: message.handBack.id,
      name: settings.handBack?.name ?? settings.handBackName,
      arguments: handBackArguments(message.handBack.output, settings.handBack),
    });
  let text: Json | undefined =
    message.text !== undefined && message.text !== ""
      ? { type: "message", role: "assistant", content: [{ type: "output_text", text: message.text }] }
      : undefined;
  const items: Json[] = [];
  const state = Array.isArray(message.providerState) ? message.providerState : [];
  for (const entry of state) {
    if (isReasoningItem(entry)) items.push(entry);
    else if (!isJsonObject(entry)) continue;
    else if (entry.type === "message" && text !== undefined) {
      items.push(text);
      text = undefined;
    } else if (entry.type === "function_call" && typeof entry.call_id === "string") {
      const call = calls.get(entry.call_id);
      if (call === undefined) continue;
      items.push(call);
      calls.delete(entry.call_id);
    }
  }
  if (text !== undefined) items.push(text);
  items.push(...calls.values());
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
