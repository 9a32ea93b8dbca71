// What the loopback Anthropic server refuses, as the real Messages API answers 400 to it. Each check
// returns the reason, recorded in the server's `refusals` and sent as the error message.
import type { Json } from "../../../src/json/index.js";

type Obj = { [key: string]: Json };

const ALLOWED_FIELDS = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "tools",
  "tool_choice",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "thinking",
  "service_tier",
]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const STATE_TYPES = new Set(["thinking", "redacted_thinking"]);
// The content block types a request may carry; the API refuses any other tag.
const BLOCK_TYPES = [
  "text",
  "image",
  "document",
  "search_result",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "server_tool_use",
  "web_search_tool_result",
];

function unknownBlock(blocks: Obj[], at: string): string | undefined {
  for (const [index, block] of blocks.entries()) {
    if (typeof block.type === "string" && BLOCK_TYPES.includes(block.type)) continue;
    const tags = BLOCK_TYPES.map((type) => `'${type}'`).join(", ");
    const tag = typeof block.type === "string" ? block.type : (JSON.stringify(block.type) ?? "undefined");
    return `${at}.content.${index}: Input tag '${tag}' found using 'type' does not match any of the expected tags: ${tags}`;
  }
  return undefined;
}

const isObject = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** The blocks of a message's content (a string is one text block). */
export function blocksOf(content: Json | undefined): Obj[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function checkTools(body: Obj): string | undefined {
  const { tools, tool_choice: toolChoice } = body;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return "tools: expected an array";
    for (const [index, tool] of tools.entries()) {
      if (!isObject(tool)) return `tools.${index}: expected an object`;
      if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name))
        return `tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObject(tool.input_schema) || tool.input_schema.type !== "object")
        return `tools.${index}.input_schema.type: Input should be 'object'`;
    }
  }
  const hasTools = Array.isArray(tools) && tools.length > 0;
  if (isObject(toolChoice) && toolChoice.disable_parallel_tool_use !== undefined && !hasTools)
    return "tool_choice.disable_parallel_tool_use: may only be specified when tools are given";
  return undefined;
}

function checkAssistant(blocks: Obj[], at: string, issued: ReadonlyMap<string, Json>): string | undefined {
  let seenOther = false;
  for (const [index, block] of blocks.entries()) {
    const where = `${at}.content.${index}`;
    if (typeof block.type === "string" && STATE_TYPES.has(block.type)) {
      if (seenOther) return `${where}: thinking blocks must come first in an assistant turn`;
      const key = block.type === "thinking" ? block.signature : block.data;
      const original = typeof key === "string" ? issued.get(key) : undefined;
      if (original === undefined || JSON.stringify(original) !== JSON.stringify(block))
        return `${where}: Invalid \`signature\` in \`${block.type}\` block`;
      continue;
    }
    seenOther = true;
    if (block.type === "text" && (typeof block.text !== "string" || block.text === ""))
      return `${where}: text content blocks must be non-empty`;
    if (block.type === "tool_use") {
      if (typeof block.id !== "string" || block.id === "") return `${where}.id: Field required`;
      if (typeof block.name !== "string" || !TOOL_NAME.test(block.name))
        return `${where}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObject(block.input)) return `${where}.input: Input should be a valid dictionary`;
    }
  }
  return undefined;
}

function checkUser(blocks: Obj[], at: string, asked: ReadonlySet<string>): string | undefined {
  const answered = new Set<string>();
  let seenOther = false;
  for (const [index, block] of blocks.entries()) {
    const where = `${at}.content.${index}`;
    if (block.type === "tool_result") {
      if (seenOther)
        return `${where}: tool_result blocks must come first in the user turn that follows a tool_use (text came before)`;
      const id = typeof block.tool_use_id === "string" ? block.tool_use_id : "";
      if (!asked.has(id))
        return `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      answered.add(id);
      continue;
    }
    seenOther = true;
    if (block.type === "text" && (typeof block.text !== "string" || block.text === ""))
      return `${where}: text content blocks must be non-empty`;
  }
  const unanswered = [...asked].filter((id) => !answered.has(id));
  if (unanswered.length > 0)
    return `${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  return undefined;
}

function checkMessages(messages: Json | undefined, issued: ReadonlyMap<string, Json>): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return "messages: at least one message is required";
  // The API combines consecutive turns of one role into one turn before it checks them.
  const turns: { role: Json; blocks: Obj[]; at: string }[] = [];
  for (const [index, message] of messages.entries()) {
    const at = `messages.${index}`;
    if (!isObject(message) || (message.role !== "user" && message.role !== "assistant"))
      return `${at}.role: Input should be 'user' or 'assistant'`;
    if (index === 0 && message.role !== "user") return "messages: the first message must use the `user` role";
    const blocks = blocksOf(message.content);
    if (blocks.length === 0) return `${at}.content: messages must have non-empty content`;
    const unknown = unknownBlock(blocks, at);
    if (unknown !== undefined) return unknown;
    const last = turns.at(-1);
    if (last !== undefined && last.role === message.role) last.blocks.push(...blocks);
    else turns.push({ role: message.role, blocks, at });
  }
  let asked = new Set<string>();
  for (const { role, blocks, at } of turns) {
    const problem = role === "assistant" ? checkAssistant(blocks, at, issued) : checkUser(blocks, at, asked);
    if (problem !== undefined) return problem;
    asked = new Set();
    if (role === "assistant")
      for (const block of blocks) if (block.type === "tool_use" && typeof block.id === "string") asked.add(block.id);
  }
  if (asked.size > 0)
    return `messages: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...asked].join(", ")}`;
  return undefined;
}

/**
 * Why the real Messages API would refuse a request body, or `undefined` when it would take it.
 * `issued` maps every thinking signature the server gave out to the block it gave out with it.
 */
export function refusalOf(body: Json, issued: ReadonlyMap<string, Json>): string | undefined {
  if (!isObject(body)) return "the request body must be a JSON object";
  for (const field of Object.keys(body))
    if (!ALLOWED_FIELDS.has(field)) return `${field}: Extra inputs are not permitted`;
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1)
    return "max_tokens: Field required";
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system))
    return "system: Input should be a valid string or a list of text blocks";
  return checkTools(body) ?? checkMessages(body.messages, issued);
}
