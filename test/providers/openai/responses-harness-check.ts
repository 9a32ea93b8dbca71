// What the loopback Responses API refuses with a 400, as the real API does: unknown fields, tools with
// bad names, include values it does not know, function_call_output items that answer no call,
// function_call items left unanswered, and reasoning items it did not issue or that lost their
// following item.
import type { Json } from "../../../src/json/index.js";

/** The 400 the server answers, in OpenAI's error shape. */
export interface Refusal {
  message: string;
  param: string | null;
  code: string | null;
}

/** A reasoning item the server gave out, and the item that came right after it. */
export interface IssuedReasoning {
  id: string;
  follows: { type: "function_call"; callId: string } | { type: "message" };
}

type Fields = Record<string, unknown>;

// What openai v6 can send for POST /v1/responses (ResponseCreateParamsBase).
const TOP_LEVEL = new Set([
  "background",
  "context_management",
  "conversation",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "metadata",
  "model",
  "moderation",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
]);

const INCLUDABLE = new Set([
  "file_search_call.results",
  "web_search_call.results",
  "web_search_call.action.sources",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "code_interpreter_call.outputs",
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
]);

const ITEM_FIELDS: Record<string, Set<string>> = {
  message: new Set(["type", "role", "content", "id", "status", "phase"]),
  function_call: new Set(["type", "call_id", "name", "arguments", "id", "status", "namespace"]),
  function_call_output: new Set(["type", "call_id", "output", "id", "status"]),
  reasoning: new Set(["type", "id", "summary", "encrypted_content", "content", "status"]),
};

const TOOL_FIELDS = new Set(["type", "name", "description", "parameters", "strict"]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = new Set(["user", "assistant", "system", "developer"]);

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const refuse = (message: string, param: string | null, code: string | null = null): Refusal => ({
  message,
  param,
  code,
});

function unknownField(value: Fields, allowed: Set<string>, path: string): Refusal | undefined {
  for (const key of Object.keys(value))
    if (!allowed.has(key)) return refuse(`Unknown parameter: '${path}${key}'.`, `${path}${key}`, "unknown_parameter");
  return undefined;
}

function checkTools(tools: unknown): Refusal | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return refuse("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
  for (const [index, tool] of tools.entries()) {
    const path = `tools[${index}]`;
    if (!isObject(tool)) return refuse(`Invalid type for '${path}': expected an object.`, path, "invalid_type");
    const unknown = unknownField(tool, TOOL_FIELDS, `${path}.`);
    if (unknown !== undefined) return unknown;
    if (tool.type !== "function") return refuse(`Invalid value for '${path}.type'.`, `${path}.type`, "invalid_value");
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name))
      return refuse(
        `Invalid '${path}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${path}.name`,
        "invalid_value",
      );
    if (tool.parameters !== undefined && !isObject(tool.parameters))
      return refuse(`Invalid type for '${path}.parameters': expected an object.`, `${path}.parameters`, "invalid_type");
  }
  return undefined;
}

function checkInclude(include: unknown): Refusal | undefined {
  if (include === undefined || include === null) return undefined;
  if (!Array.isArray(include))
    return refuse("Invalid type for 'include': expected an array.", "include", "invalid_type");
  for (const [index, value] of include.entries())
    if (typeof value !== "string" || !INCLUDABLE.has(value))
      return refuse(
        `Invalid value: '${String(value)}'. Supported values are: ${[...INCLUDABLE].map((v) => `'${v}'`).join(", ")}.`,
        `include[${index}]`,
        "invalid_value",
      );
  return undefined;
}

function itemType(item: Fields): string | undefined {
  if (item.type === undefined && typeof item.role === "string") return "message";
  return typeof item.type === "string" ? item.type : undefined;
}

function follows(next: unknown, issued: IssuedReasoning): boolean {
  if (!isObject(next)) return false;
  if (issued.follows.type === "message") return itemType(next) === "message" && next.role === "assistant";
  return next.type === "function_call" && next.call_id === issued.follows.callId;
}

function checkItem(item: Fields, path: string): Refusal | undefined {
  const type = itemType(item);
  const allowed = type === undefined ? undefined : ITEM_FIELDS[type];
  if (allowed === undefined) return refuse(`Invalid value for '${path}.type'.`, `${path}.type`, "invalid_value");
  const unknown = unknownField(item, allowed, `${path}.`);
  if (unknown !== undefined) return unknown;
  if (type === "message" && (typeof item.role !== "string" || !ROLES.has(item.role)))
    return refuse(`Invalid value for '${path}.role'.`, `${path}.role`, "invalid_value");
  if (type === "message" && typeof item.content !== "string" && !Array.isArray(item.content))
    return refuse(`Invalid type for '${path}.content'.`, `${path}.content`, "invalid_type");
  if (type === "function_call" && (typeof item.call_id !== "string" || typeof item.name !== "string"))
    return refuse(
      `Missing required parameter: '${path}.call_id' or '${path}.name'.`,
      path,
      "missing_required_parameter",
    );
  if (type === "function_call" && typeof item.arguments !== "string")
    return refuse(`Invalid type for '${path}.arguments': expected a string.`, `${path}.arguments`, "invalid_type");
  if (type === "function_call_output" && typeof item.output !== "string" && !Array.isArray(item.output))
    return refuse(`Invalid type for '${path}.output': expected a string.`, `${path}.output`, "invalid_type");
  return undefined;
}

function checkInput(input: unknown, issued: ReadonlyMap<string, IssuedReasoning>): Refusal | undefined {
  if (typeof input === "string") return undefined;
  if (!Array.isArray(input))
    return refuse("Missing required parameter: 'input'.", "input", "missing_required_parameter");
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    const path = `input[${index}]`;
    if (!isObject(item)) return refuse(`Invalid type for '${path}': expected an object.`, path, "invalid_type");
    const invalid = checkItem(item, path);
    if (invalid !== undefined) return invalid;
    if (item.type === "function_call") called.add(item.call_id as string);
    if (item.type === "function_call_output") {
      const callId = item.call_id as string;
      if (!called.has(callId))
        return refuse(`No tool call found for function call output with call_id ${String(callId)}.`, "input");
      answered.add(callId);
    }
    if (item.type === "reasoning") {
      const known = typeof item.encrypted_content === "string" ? issued.get(item.encrypted_content) : undefined;
      if (known === undefined)
        return refuse(
          `The encrypted content for item ${String(item.id)} could not be verified.`,
          "input",
          "invalid_encrypted_content",
        );
      if (!follows(input[index + 1], known))
        return refuse(
          `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`,
          "input",
        );
    }
  }
  for (const callId of called)
    if (!answered.has(callId)) return refuse(`No tool output found for function call ${callId}.`, "input");
  return undefined;
}

/** Why the real Responses API would answer this body with a 400, or `undefined` when it would take it. */
export function checkResponsesRequest(body: Json, issued: ReadonlyMap<string, IssuedReasoning>): Refusal | undefined {
  if (!isObject(body)) return refuse("The body must be a JSON object.", null, "invalid_json");
  const unknown = unknownField(body, TOP_LEVEL, "");
  if (unknown !== undefined) return unknown;
  if (typeof body.model !== "string" || body.model === "")
    return refuse("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean")
    return refuse("Invalid type for 'stream': expected a boolean.", "stream", "invalid_type");
  return checkInclude(body.include) ?? checkTools(body.tools) ?? checkInput(body.input, issued);
}
