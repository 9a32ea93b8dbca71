import type { Json, JsonObject } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type {
  ModelAssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelToolMessage,
  ModelUserMessage,
} from "../../models/model-client.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { contentText } from "../common/parse-arguments.js";
import type {
  AiSdkFunctionTool,
  AiSdkMessage,
  AiSdkProviderOptions,
  AiSdkStatePart,
  AiSdkTextPart,
  AiSdkToolCallPart,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
} from "./language-model.js";
import { keepForm, knownForm, toolGroup } from "./prompt-cache.js";

/** The fields each kind of part the adapter keeps in `providerState` may have. */
const STATE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  reasoning: ["type", "text", "providerOptions"],
  "reasoning-file": ["type", "mediaType", "data", "providerOptions"],
  custom: ["type", "kind", "providerOptions"],
  text: ["type", "providerOptions"],
  "tool-call": ["type", "toolCallId", "providerOptions"],
};

/**
 * Whether a value of an answer's `providerState` is a part this adapter kept: one of its kinds, with
 * only that kind's fields. Another adapter's state (a Responses reasoning item with its `id` and
 * `summary`, an Anthropic thinking block) is not this provider's and is left out.
 */
function isOwnPart(value: Json): value is JsonObject & { type: string } {
  if (!isJsonObject(value) || typeof value.type !== "string" || !Object.hasOwn(STATE_FIELDS, value.type)) return false;
  const fields = STATE_FIELDS[value.type] as readonly string[];
  if (!Object.keys(value).every((key) => fields.includes(key))) return false;
  if (value.providerOptions !== undefined && !isJsonObject(value.providerOptions)) return false;
  if (value.type === "reasoning") return typeof value.text === "string";
  if (value.type === "tool-call") return typeof value.toolCallId === "string" && value.providerOptions !== undefined;
  if (value.type === "text") return value.providerOptions !== undefined;
  return true;
}

// A V4 reasoning file stored by URL was kept as the URL's text; the prompt wants a URL object again.
function fromStoredState(part: AiSdkStatePart): AiSdkStatePart {
  if (part.type !== "reasoning-file" || !isJsonObject(part.data)) return part;
  const data = part.data as { type?: unknown; url?: unknown };
  if (data.type !== "url" || typeof data.url !== "string") return part;
  return { ...part, data: { ...data, url: new URL(data.url) } };
}

type AssistantPart = AiSdkStatePart | AiSdkTextPart | AiSdkToolCallPart;

/**
 * An answer as an assistant message. Its `providerState` gives the parts the provider wants back in
 * their places: reasoning parts as they came, and where a text or a tool call stood with its provider
 * metadata, that part with the metadata as its `providerOptions` (a Gemini thought signature goes
 * back on its own call). What the state does not place follows: the text, then the calls.
 */
function assistantMessage(
  message: ModelAssistantMessage,
  handBack: HandBackTool | undefined,
  handBackName: string,
): AiSdkMessage {
  const calls = new Map<string, AiSdkToolCallPart>();
  for (const call of message.calls) {
    // Text that was not JSON goes back as the model wrote it; the provider package decides how its wire carries it.
    calls.set(call.id, { type: "tool-call", toolCallId: call.id, toolName: call.tool, input: call.args });
  }
  if (message.handBack !== undefined) {
    const { id, output } = message.handBack;
    const input = handBack?.wrapped === true ? { output } : output;
    calls.set(id, { type: "tool-call", toolCallId: id, toolName: handBackName, input });
  }
  let text: AiSdkTextPart | undefined =
    message.text !== undefined && message.text !== "" ? { type: "text", text: message.text } : undefined;
  const content: AssistantPart[] = [];
  const state = Array.isArray(message.providerState) ? message.providerState : [];
  for (const part of state) {
    if (!isOwnPart(part)) continue;
    const options = part.providerOptions as AiSdkProviderOptions;
    if (part.type === "text") {
      if (text === undefined) continue;
      content.push({ ...text, providerOptions: options });
      text = undefined;
    } else if (part.type === "tool-call") {
      const call = calls.get(part.toolCallId as string);
      if (call === undefined) continue;
      content.push({ ...call, providerOptions: options });
      calls.delete(part.toolCallId as string);
    } else content.push(fromStoredState(part as AiSdkStatePart));
  }
  if (text !== undefined) content.push(text);
  content.push(...calls.values());
  return { role: "assistant", content };
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * The call ids of the hand-backs a conversation replays (rare: only refused ones are replayed). Only
 * the messages from `from` are read when the ones before held none (`before` false).
 */
function handBackCallIds(messages: readonly ModelMessage[], from: number, before: boolean): ReadonlySet<string> {
  let ids: Set<string> | undefined;
  for (let index = before ? 0 : from; index < messages.length; index++) {
    const message = messages[index] as ModelMessage;
    if (message.role === "assistant" && message.handBack !== undefined) (ids ??= new Set()).add(message.handBack.id);
  }
  return ids ?? NO_IDS;
}

/** The prompt last built for the requests that begin with a given frozen message, kept up to date in place. */
interface Built {
  /** The hand-back tool's name and wrapping, which the assistant messages' forms depend on. */
  key: string;
  /** The leading frozen messages it was built from (those after may have changed since). */
  messages: ModelMessage[];
  /** The prompt's entries, without the system message. */
  entries: AiSdkMessage[];
  /** For each message read, the index of the entry it is part of. */
  entryOf: number[];
  /** Whether its messages replayed a hand-back. */
  handBacks: boolean;
}

const builds = new WeakMap<object, Built>();

/**
 * Cuts a build back to what it shares with these messages, and gives the message to read next. An
 * entry made of tool results is made again from its first result, since later results may join it.
 */
function resume(memo: Built, messages: readonly ModelMessage[]): number {
  const limit = Math.min(memo.messages.length, messages.length);
  let same = 0;
  while (same < limit && memo.messages[same] === messages[same]) same++;
  let from = same;
  let kept = same === 0 ? 0 : (memo.entryOf[same - 1] as number) + 1;
  if (same > 0 && (messages[same - 1] as ModelMessage).role === "tool") {
    kept -= 1;
    while (from > 0 && memo.entryOf[from - 1] === kept) from--;
  }
  memo.messages.length = from;
  memo.entries.length = kept;
  memo.entryOf.length = from;
  return from;
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
 * A run's requests repeat the conversation so far and add to it, so the prompt of the last request
 * that began with the same (frozen) task message is kept: the next one reuses its entries up to
 * where the two requests part, and makes only the rest.
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
  const { messages } = request;
  const key = `${handBackName} ${handBack?.wrapped === true}`;
  const head = messages[0];
  const kept = head !== undefined && Object.isFrozen(head);
  const memo = kept ? builds.get(head) : undefined;
  const from = memo === undefined || memo.key !== key ? 0 : resume(memo, messages);
  const handBackIds = handBackCallIds(messages, from, memo?.handBacks ?? false);
  // A replayed hand-back renames the results answering it, wherever they are: made again from the start.
  const build: Built =
    memo !== undefined && from > 0 && handBackIds.size === 0
      ? memo
      : { key, messages: [], entries: [], entryOf: [], handBacks: false };
  if (kept) builds.set(head, build);
  try {
    extend(build, messages, build.entryOf.length, { handBack, handBackName, handBackIds });
  } catch (error) {
    if (kept) builds.delete(head);
    throw error;
  }
  build.handBacks = handBackIds.size > 0;
  // An empty system message is left out: some providers refuse an empty text block.
  return request.system === ""
    ? build.entries.slice()
    : [{ role: "system", content: request.system }, ...build.entries];
}

/** Adds the prompt entries of the messages from `from` on to a build, and those messages while they are frozen. */
function extend(
  build: Built,
  messages: readonly ModelMessage[],
  from: number,
  names: { handBack: HandBackTool | undefined; handBackName: string; handBackIds: ReadonlySet<string> },
): void {
  const { entries, entryOf, key } = build;
  const { handBack, handBackName, handBackIds } = names;
  let first: ModelToolMessage | undefined;
  let results: AiSdkToolResultPart[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index] as ModelMessage;
    if (build.messages.length === index && Object.isFrozen(message)) build.messages.push(message);
    if (message.role !== "tool" && first !== undefined) {
      entries.push(toolGroup(first, results));
      first = undefined;
      results = [];
    }
    switch (message.role) {
      case "user":
        entryOf.push(entries.length);
        entries.push(knownForm(message, "") ?? keepForm(message, "", userMessage(message)));
        break;
      case "assistant":
        entryOf.push(entries.length);
        entries.push(
          knownForm(message, key) ?? keepForm(message, key, assistantMessage(message, handBack, handBackName)),
        );
        break;
      case "tool": {
        // The tool message answering a hand-back names the hand-back tool, as the call did.
        const toolName = handBackIds.size > 0 && handBackIds.has(message.callId) ? handBackName : message.tool;
        first ??= message;
        entryOf.push(entries.length);
        results.push(knownForm(message, toolName) ?? keepForm(message, toolName, toolResult(message, toolName)));
        break;
      }
    }
  }
  if (first !== undefined) entries.push(toolGroup(first, results));
}
