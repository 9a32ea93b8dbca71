// The openaiChat harness for the shared adapter suite: a loopback Chat Completions server, the real
// `openai` SDK pointed at it, and a neutral reading of the request bodies it receives.
import type { Json } from "../../../src/json/index.js";
import type { ProviderHarness, ReadRequest } from "../support/harness.js";
import { bodyObject, emptyReading } from "../support/read-request.js";
import { chatClient } from "./chat-client-module.js";
import { startChatServer } from "./chat-server.js";

type Body = Record<string, unknown>;

const list = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);

const text = (content: unknown): string =>
  typeof content === "string"
    ? content
    : list(content)
        .map((part) => (typeof part.text === "string" ? part.text : ""))
        .join("");

/** Reads a Chat Completions request body into the suite's neutral form. */
export function readChatRequest(request: Json): ReadRequest {
  const body: Body = bodyObject(request);
  const messages = list(body.messages);
  const read = emptyReading({
    model: typeof body.model === "string" ? body.model : "",
    system: messages
      .filter((message) => message.role === "system" || message.role === "developer")
      .map((message) => text(message.content))
      .join("\n"),
    tools: list(body.tools).map((tool) => String((tool.function as Body | undefined)?.name)),
    stream: body.stream === true,
    parallelToolCalls: typeof body.parallel_tool_calls === "boolean" ? body.parallel_tool_calls : undefined,
    maxOutputTokens:
      typeof body.max_completion_tokens === "number"
        ? body.max_completion_tokens
        : typeof body.max_tokens === "number"
          ? body.max_tokens
          : undefined,
  });
  for (const message of messages) {
    if (message.role === "user") read.userTexts.push(text(message.content));
    if (message.role === "tool")
      read.results.push({ callId: String(message.tool_call_id), content: text(message.content) });
    if (message.role === "assistant")
      for (const call of list(message.tool_calls)) {
        const fn = (call.function ?? {}) as Body;
        read.calls.push({ id: String(call.id), tool: String(fn.name), arguments: String(fn.arguments) });
      }
  }
  return read;
}

/** The openaiChat harness: Chat Completions over the real `openai` SDK against a loopback server. */
export const openaiChatHarness: ProviderHarness = {
  name: "openaiChat",
  start: startChatServer,
  client: chatClient,
  read: readChatRequest,
  providerState: false,
  malformedArguments: () => true,
};
