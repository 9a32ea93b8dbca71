import type { Json } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type {
  ModelAssistantMessage,
  ModelRequest,
  ModelToolCall,
  ModelToolMessage,
} from "../../models/model-client.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { argumentsText, contentText } from "../common/parse-arguments.js";
import type { AnthropicBlock, AnthropicMessagesBody, AnthropicTurn } from "./anthropic-client.js";

/**
 * The key under which a call's argument text goes back when it is not a JSON object. Anthropic's
 * `tool_use.input` must be an object, so a call whose streamed argument text was not JSON (or was JSON
 * but not an object) is sent back as `{ "_invalid_json": "<the text, verbatim>" }`: the model sees
 * exactly what it wrote, and the tool result beside it says why it was refused.
 */
export const INVALID_JSON_KEY = "_invalid_json";

/** What shapes a request besides the conversation. */
interface RequestSettings {
  model: string;
  maxTokens: number;
  parallelToolCalls: boolean | undefined;
  thinking: Json | undefined;
  stream: boolean;
  /** The hand-back tool of this request, when it has an output schema. */
  handBack: HandBackTool | undefined;
  /** The hand-back tool's name, for a replayed hand-back when the request has no output schema. */
  handBackName: string;
}

function toolUse(id: string, name: string, input: Json, text: () => string): AnthropicBlock {
  return { type: "tool_use", id, name, input: isJsonObject(input) ? input : { [INVALID_JSON_KEY]: text() } };
}

function callBlock(call: ModelToolCall): AnthropicBlock {
  if (call.invalidJson === true)
    return { type: "tool_use", id: call.id, name: call.tool, input: { [INVALID_JSON_KEY]: argumentsText(call) } };
  return toolUse(call.id, call.tool, call.args, () => argumentsText(call));
}

const THINKING_FIELDS: Readonly<Record<string, readonly string[]>> = {
  thinking: ["thinking", "signature"],
  redacted_thinking: ["data"],
};

/**
 * Whether a value of a message's provider state is a block this adapter gave: a `thinking` block
 * (with its text and signature) or a `redacted_thinking` block (with its data). State from
 * another adapter (a Responses reasoning item, an AI SDK part) is not, and the API would refuse it.
 */
function isThinkingBlock(value: Json): value is AnthropicBlock {
  if (!isJsonObject(value) || typeof value.type !== "string") return false;
  const fields = Object.hasOwn(THINKING_FIELDS, value.type) ? THINKING_FIELDS[value.type] : undefined;
  if (fields === undefined) return false;
  return fields.every((field) => typeof value[field] === "string");
}

function assistantBlocks(message: ModelAssistantMessage, settings: RequestSettings): AnthropicBlock[] {
  // Thinking blocks go back first and untouched: the API checks their signatures and their place.
  const blocks: AnthropicBlock[] = Array.isArray(message.providerState)
    ? message.providerState.filter(isThinkingBlock)
    : [];
  if (message.text !== undefined && message.text !== "") blocks.push({ type: "text", text: message.text });
  for (const call of message.calls) blocks.push(callBlock(call));
  if (message.handBack !== undefined) {
    const { id, output } = message.handBack;
    const name = settings.handBack?.name ?? settings.handBackName;
    const input = settings.handBack?.wrapped === true ? { output } : output;
    blocks.push(toolUse(id, name, input, () => JSON.stringify(output)));
  }
  return blocks;
}

function toolResult(message: ModelToolMessage): AnthropicBlock {
  const block: AnthropicBlock = {
    type: "tool_result",
    tool_use_id: message.callId,
    content: contentText(message.content),
  };
  if (message.outcome !== "executed") block.is_error = true;
  return block;
}

/** Appends blocks to the conversation, merging them into the last turn when it has the same role. */
function append(turns: AnthropicTurn[], role: AnthropicTurn["role"], blocks: AnthropicBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last === undefined || last.role !== role) {
    turns.push({ role, content: [...blocks] });
    return;
  }
  if (blocks[0]?.type !== "tool_result") {
    last.content.push(...blocks);
    return;
  }
  // Tool results open their user turn: the API refuses a tool_result after text in that turn.
  const firstOther = last.content.findIndex((block) => block.type !== "tool_result");
  if (firstOther === -1) last.content.push(...blocks);
  else last.content.splice(firstOther, 0, ...blocks);
}

/** The conversation of a request as Anthropic's alternating user and assistant turns. */
function anthropicTurns(request: ModelRequest, settings: RequestSettings): AnthropicTurn[] {
  const turns: AnthropicTurn[] = [];
  for (const message of request.messages) {
    if (message.role === "user") {
      if (message.content !== "") append(turns, "user", [{ type: "text", text: message.content }]);
    } else if (message.role === "assistant") append(turns, "assistant", assistantBlocks(message, settings));
    else append(turns, "user", [toolResult(message)]);
  }
  return turns;
}

/** The body of `POST /v1/messages` for a request: only fields the API knows. */
export function anthropicBody(request: ModelRequest, settings: RequestSettings): AnthropicMessagesBody {
  const body: AnthropicMessagesBody = {
    model: settings.model,
    max_tokens: request.maxOutputTokens ?? settings.maxTokens,
    messages: anthropicTurns(request, settings),
  };
  if (request.system !== "") body.system = request.system;
  const tools: NonNullable<AnthropicMessagesBody["tools"]> = request.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description === "" ? {} : { description: tool.description }),
    input_schema: tool.parameters,
  }));
  const { handBack } = settings;
  if (handBack !== undefined)
    tools.push({ name: handBack.name, description: handBack.description, input_schema: handBack.parameters });
  if (tools.length > 0) {
    body.tools = tools;
    if (settings.parallelToolCalls === false) body.tool_choice = { type: "auto", disable_parallel_tool_use: true };
  }
  if (settings.thinking !== undefined) body.thinking = settings.thinking;
  if (settings.stream) body.stream = true;
  return body;
}
