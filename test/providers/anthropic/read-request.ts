// A neutral reading of a Messages API request body, for the shared suite's assertions.
import type { Json } from "../../../src/json/index.js";
import { INVALID_JSON_KEY } from "../../../src/providers/anthropic/index.js";
import type { ReadRequest } from "../support/harness.js";
import { bodyObject, emptyReading, isJsonObject } from "../support/read-request.js";
import { blocksOf } from "./wire-checks.js";

const str = (value: Json | undefined): string => (typeof value === "string" ? value : JSON.stringify(value ?? null));
const texts = (content: Json | undefined): string =>
  blocksOf(content)
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .join("");

/** A tool_use input as the argument text it stands for: the adapter's `_invalid_json` text verbatim, else JSON. */
function argumentsOf(input: Json | undefined): string {
  if (isJsonObject(input)) {
    const keys = Object.keys(input);
    const text = input[INVALID_JSON_KEY];
    if (keys.length === 1 && typeof text === "string") return text;
  }
  return JSON.stringify(input ?? {});
}

/** Reads a request body the loopback Anthropic server received. */
export function readAnthropicRequest(request: Json): ReadRequest {
  const body = bodyObject(request);
  const read = emptyReading({
    model: typeof body.model === "string" ? body.model : "",
    system: typeof body.system === "string" ? body.system : texts(body.system),
    tools: Array.isArray(body.tools) ? body.tools.filter(isJsonObject).map((tool) => str(tool.name)) : [],
    stream: body.stream === true,
    parallelToolCalls: undefined,
    maxOutputTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
  });
  const choice = body.tool_choice;
  if (isJsonObject(choice) && typeof choice.disable_parallel_tool_use === "boolean")
    read.parallelToolCalls = !choice.disable_parallel_tool_use;
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isJsonObject) : []) {
    for (const block of blocksOf(message.content)) {
      if (message.role === "assistant" && (block.type === "thinking" || block.type === "redacted_thinking"))
        read.providerState.push(block);
      else if (message.role === "assistant" && block.type === "tool_use")
        read.calls.push({ id: str(block.id), tool: str(block.name), arguments: argumentsOf(block.input) });
      else if (message.role === "user" && block.type === "tool_result")
        read.results.push({ callId: str(block.tool_use_id), content: texts(block.content) });
      else if (message.role === "user" && block.type === "text" && typeof block.text === "string")
        read.userTexts.push(block.text);
    }
  }
  return read;
}
