// Scripted replies in the Messages API's wire format: a message as JSON, or its server-sent events.
import type { Json } from "../../../src/json/index.js";
import type { ScriptedReply, ScriptedUsage } from "../support/harness.js";

type Obj = { [key: string]: Json };
type Answer = Extract<ScriptedReply, { type: "answer" }>;

/** One server-sent event: its `event:` name and its `data:` object. */
export interface WireEvent {
  event: string;
  data: Obj;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** Anthropic's error body for a status. */
export function errorBody(status: number, message: string): Obj {
  return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
}

/** Usage in Anthropic's meaning: `input_tokens` leaves out the cache reads and writes. */
export function wireUsage(usage: ScriptedUsage | undefined): Obj {
  const read = usage?.cacheRead ?? 0;
  const write = usage?.cacheWrite ?? 0;
  return {
    input_tokens: (usage?.input ?? 0) - read - write,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: usage?.output ?? 0,
  };
}

/** Cuts a text into up to three pieces, as a model's deltas arrive. */
export function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const cut: string[] = [];
  for (let start = 0; start < text.length; start += size) cut.push(text.slice(start, start + size));
  return cut;
}

/** The thinking block of a reply's reasoning, exactly as the server issues it. */
export function thinkingBlock(reasoning: { text: string; signature: string }): Obj {
  return { type: "thinking", thinking: reasoning.text, signature: reasoning.signature };
}

function inputOf(argumentsText: string): Obj {
  const input = JSON.parse(argumentsText) as Json;
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new Error("a non-streamed tool_use input must be a JSON object");
  return input;
}

/** The content blocks of an answer (a tool call's arguments parsed: the JSON wire carries an object). */
export function answerContent(reply: Answer): Obj[] {
  const content: Obj[] = [];
  if (reply.reasoning !== undefined) content.push(thinkingBlock(reply.reasoning));
  if (reply.text !== undefined && reply.text !== "") content.push({ type: "text", text: reply.text });
  for (const call of reply.calls ?? [])
    content.push({ type: "tool_use", id: call.id, name: call.tool, input: inputOf(call.arguments) });
  return content;
}

const stopReason = (reply: Answer): string => ((reply.calls ?? []).length > 0 ? "tool_use" : "end_turn");

/** A non-streamed answer as the API sends it. */
export function messageJson(reply: Answer, id: string, model: string): Obj {
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: answerContent(reply),
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: wireUsage(reply.usage),
  };
}

function messageStart(id: string, model: string, usage: Obj): WireEvent {
  const message: Obj = { id, type: "message", role: "assistant", model, content: [], stop_reason: null };
  message.stop_sequence = null;
  message.usage = { ...usage, output_tokens: 1 };
  return { event: "message_start", data: { type: "message_start", message } };
}

function block(index: number, start: Obj, deltas: Obj[]): WireEvent[] {
  return [
    { event: "content_block_start", data: { type: "content_block_start", index, content_block: start } },
    ...deltas.map((delta) => ({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } })),
    { event: "content_block_stop", data: { type: "content_block_stop", index } },
  ];
}

function textDeltas(text: string): Obj[] {
  return pieces(text).map((piece) => ({ type: "text_delta", text: piece }));
}

/** A streamed answer's events; a call's argument text goes out as it is, malformed or not. */
export function answerEvents(reply: Answer, id: string, model: string): WireEvent[] {
  const usage = wireUsage(reply.usage);
  const events: WireEvent[] = [messageStart(id, model, usage), { event: "ping", data: { type: "ping" } }];
  let index = 0;
  if (reply.reasoning !== undefined) {
    const thinking = pieces(reply.reasoning.text).map((piece) => ({ type: "thinking_delta", thinking: piece }));
    const signature = { type: "signature_delta", signature: reply.reasoning.signature };
    events.push(...block(index++, { type: "thinking", thinking: "", signature: "" }, [...thinking, signature]));
  }
  if (reply.text !== undefined && reply.text !== "")
    events.push(...block(index++, { type: "text", text: "" }, textDeltas(reply.text)));
  for (const call of reply.calls ?? []) {
    const json = pieces(call.arguments).map((piece) => ({ type: "input_json_delta", partial_json: piece }));
    events.push(...block(index++, { type: "tool_use", id: call.id, name: call.tool, input: {} }, json));
  }
  events.push(
    // message_delta's usage is cumulative: the input counts again, the output in full.
    {
      event: "message_delta",
      data: { type: "message_delta", delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

/** A stalled answer's events: the start of a text block and its deltas, and nothing after. */
export function stallEvents(text: string, id: string, model: string): WireEvent[] {
  return [
    messageStart(id, model, wireUsage(undefined)),
    {
      event: "content_block_start",
      data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    },
    ...textDeltas(text).map((delta) => ({
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta },
    })),
  ];
}

/** Writes events as server-sent events. */
export function sse(events: readonly WireEvent[]): string {
  return events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}
