import type { Json } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type {
  ModelAssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelToolMessage,
  ModelUserMessage,
} from "../../models/model-client.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import type { HandBackTool } from "../shared/hand-back-tool.js";
import { contentText } from "../shared/parse-arguments.js";
import type {
  AiSdkFunctionTool,
  AiSdkMessage,
  AiSdkStatePart,
  AiSdkTextPart,
  AiSdkToolCallPart,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
} from "./language-model.js";
import { formOf, groupOf } from "./prompt-cache.js";

const STATE_PART_TYPES: ReadonlySet<string> = new Set(["reasoning", "reasoning-file", "custom"]);

/**
 * The parts of an answer's `providerState` that go back first in its assistant message, as they
 * came: the adapter stored them as an array of AI SDK parts. Anything else there (another adapter's
 * state) is not this provider's and is left out.
 */
function stateParts(state: Json | undefined): AiSdkStatePart[] {
  if (!Array.isArray(state)) return [];
  const parts: AiSdkStatePart[] = [];
  for (const part of state) {
    if (!isJsonObject(part) || typeof part.type !== "string" || !STATE_PART_TYPES.has(part.type)) continue;
    parts.push(fromStoredState(part as AiSdkStatePart));
  }
  return parts;
}

// A V4 reasoning file stored by URL was kept as the URL's text; the prompt wants a URL object again.
function fromStoredState(part: AiSdkStatePart): AiSdkStatePart {
  if (part.type !== "reasoning-file" || !isJsonObject(part.data)) return part;
  const data = part.data as { type?: unknown; url?: unknown };
  if (data.type !== "url" || typeof data.url !== "string") return part;
  return { ...part, data: { ...data, url: new URL(data.url) } };
}

function assistantMessage(
  message: ModelAssistantMessage,
  handBack: HandBackTool | undefined,
  handBackName: string,
): AiSdkMessage {
  const content: (AiSdkStatePart | AiSdkTextPart | AiSdkToolCallPart)[] = stateParts(message.providerState);
  if (message.text !== undefined && message.text !== "") content.push({ type: "text", text: message.text });
  for (const call of message.calls) {
    // Text that was not JSON goes back as the model wrote it; the provider package decides how its wire carries it.
    content.push({ type: "tool-call", toolCallId: call.id, toolName: call.tool, input: call.args });
  }
  if (message.handBack !== undefined) {
    const { id, output } = message.handBack;
    const input = handBack?.wrapped === true ? { output } : output;
    content.push({ type: "tool-call", toolCallId: id, toolName: handBackName, input });
  }
  return { role: "assistant", content };
}

/** The call ids of the hand-backs a conversation replays (rare: only refused ones are replayed). */
function handBackCallIds(messages: readonly ModelMessage[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const message of messages)
    if (message.role === "assistant" && message.handBack !== undefined) ids.add(message.handBack.id);
  return ids;
}

function userMessage(message: ModelUserMessage): AiSdkMessage {
  return { role: "user", content: [{ type: "text", text: message.content }] };
}

function toolResult(message: ModelToolMessage, toolName: string): AiSdkToolResultPart {
  return { type: "tool-result", toolCallId: message.callId, toolName, output: resultOutput(message) };
}

function resultOutput(message: ModelToolMessage): AiSdkToolResultOutput {
  if (message.outcome !== "executed") return { type: "error-text", value: contentText(message.content) };
  return typeof message.content === "string"
    ? { type: "text", value: message.content }
    : { type: "json", value: message.content };
}

function inputSchema(schema: JsonSchema): Record<string, Json> {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  return schema;
}

/** The tools offered: the app's tools, then the hand-back tool when the request has an output schema. */
export function aiSdkTools(request: ModelRequest, handBack: HandBackTool | undefined): AiSdkFunctionTool[] {
  const tools: AiSdkFunctionTool[] = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema(tool.parameters),
  }));
  if (handBack !== undefined) {
    tools.push({
      type: "function",
      name: handBack.name,
      description: handBack.description,
      inputSchema: inputSchema(handBack.parameters),
    });
  }
  return tools;
}

/**
 * The AI SDK prompt of a request: the system message, the task, each answer as an assistant message
 * (its opaque state first, then its text and calls), and the answers to its calls grouped in one tool
 * message, as the AI SDK's own `generateText` sends them. A result that was withheld or refused goes
 * as `error-text` with the step's reason.
 *
 * @example
 * ```ts
 * const prompt = aiSdkPrompt(request, handBackTool(request), "hand_back");
 * await model.doGenerate({ prompt, tools: aiSdkTools(request, handBack) });
 * ```
 */
export function aiSdkPrompt(
  request: ModelRequest,
  handBack: HandBackTool | undefined,
  handBackName: string,
): AiSdkMessage[] {
  const prompt: AiSdkMessage[] = [];
  // An empty system message is left out: some providers refuse an empty text block.
  if (request.system !== "") prompt.push({ role: "system", content: request.system });
  const handBackIds = handBackCallIds(request.messages);
  const assistantKey = `${handBackName} ${handBack?.wrapped === true}`;
  let first: ModelToolMessage | undefined;
  let results: AiSdkToolResultPart[] = [];
  const closeResults = (): void => {
    if (first === undefined) return;
    prompt.push(groupOf(first, results, (content) => ({ role: "tool", content })));
    first = undefined;
    results = [];
  };
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        closeResults();
        prompt.push(formOf(message, "", () => userMessage(message)));
        break;
      case "assistant":
        closeResults();
        prompt.push(formOf(message, assistantKey, () => assistantMessage(message, handBack, handBackName)));
        break;
      case "tool": {
        // The tool message answering a hand-back names the hand-back tool, as the call did.
        const toolName = handBackIds.has(message.callId) ? handBackName : message.tool;
        first ??= message;
        results.push(formOf(message, toolName, () => toolResult(message, toolName)));
        break;
      }
    }
  }
  closeResults();
  return prompt;
}
