// How the loopback Responses API writes a scripted answer: a `Response` object for a JSON reply, and
// the server-sent events the real API streams for the same answer (with sequence numbers).
import type { Json, JsonObject } from "../../../src/json/index.js";
import type { ScriptedReply, ScriptedUsage } from "../support/harness.js";
import type { IssuedReasoning } from "./responses-harness-check.js";

type Answer = Extract<ScriptedReply, { type: "answer" }>;

/** Gives out the ids of one server: `resp_1`, `msg_2`, ... */
export type NextId = (prefix: string) => string;

/** What a scripted answer becomes: the response, and the reasoning items it issued (to check later). */
export interface BuiltAnswer {
  response: JsonObject;
  issued: { encrypted: string; reasoning: IssuedReasoning }[];
}

function reasoningItem(id: string, text: string, signature: string): JsonObject {
  return { id, type: "reasoning", summary: [{ type: "summary_text", text }], encrypted_content: signature };
}

function usageOf(usage: ScriptedUsage | undefined): JsonObject {
  const input = usage?.input ?? 0;
  const output = usage?.output ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage?.cacheRead ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage?.reasoning ?? 0 },
    total_tokens: input + output,
  };
}

/** The response object around an output, with the request's settings echoed as the real API does. */
export function responseShell(id: string, body: JsonObject, status: string, output: Json[], usage: Json): JsonObject {
  return {
    id,
    object: "response",
    created_at: 1_767_225_600,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model ?? null,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage,
    metadata: {},
  };
}

/** The finished response for a scripted answer: reasoning first, then the message, then the calls. */
export function buildAnswer(answer: Answer, body: JsonObject, nextId: NextId): BuiltAnswer {
  const output: JsonObject[] = [];
  const reasoning = answer.reasoning;
  const reasoningId = reasoning === undefined ? undefined : nextId("rs");
  if (answer.text !== undefined && answer.text !== "")
    output.push({
      id: nextId("msg"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
    });
  for (const call of answer.calls ?? [])
    output.push({
      id: nextId("fc"),
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.tool,
      arguments: call.arguments,
    });
  const issued: BuiltAnswer["issued"] = [];
  for (const extra of answer.reasoningBefore ?? []) {
    const at = output.findIndex((item) => item.type === "function_call" && item.call_id === extra.callId);
    if (at === -1) throw new Error(`A scripted reasoning item names no call ${extra.callId}.`);
    const id = nextId("rs");
    issued.push({
      encrypted: extra.signature,
      reasoning: { id, follows: { type: "function_call", callId: extra.callId } },
    });
    output.splice(at, 0, reasoningItem(id, extra.text, extra.signature));
  }
  if (reasoning !== undefined && reasoningId !== undefined) {
    const next = output[0];
    if (next === undefined) throw new Error("A scripted reasoning reply needs text or a call after it.");
    const follows: IssuedReasoning["follows"] =
      next.type === "message" ? { type: "message" } : { type: "function_call", callId: next.call_id as string };
    issued.push({ encrypted: reasoning.signature, reasoning: { id: reasoningId, follows } });
    output.unshift(reasoningItem(reasoningId, reasoning.text, reasoning.signature));
  }
  const response = responseShell(nextId("resp"), body, "completed", output, usageOf(answer.usage));
  return { response, issued };
}

/** Cuts a text into up to three deltas, so a stream carries more than one. */
export function deltas(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** The events that stream one output item, between `response.output_item.added` and `.done`. */
function itemEvents(item: JsonObject, index: number): JsonObject[] {
  const events: JsonObject[] = [];
  const base = { output_index: index, item_id: item.id ?? null };
  if (item.type === "message") {
    const part = (item.content as JsonObject[])[0] ?? { type: "output_text", text: "", annotations: [] };
    const text = typeof part.text === "string" ? part.text : "";
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...item, status: "in_progress", content: [] },
    });
    events.push({ type: "response.content_part.added", ...base, content_index: 0, part: { ...part, text: "" } });
    for (const delta of deltas(text))
      events.push({ type: "response.output_text.delta", ...base, content_index: 0, delta, logprobs: [] });
    events.push({ type: "response.output_text.done", ...base, content_index: 0, text, logprobs: [] });
    events.push({ type: "response.content_part.done", ...base, content_index: 0, part });
  } else if (item.type === "function_call") {
    const text = typeof item.arguments === "string" ? item.arguments : "";
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...item, status: "in_progress", arguments: "" },
    });
    for (const delta of deltas(text)) events.push({ type: "response.function_call_arguments.delta", ...base, delta });
    events.push({ type: "response.function_call_arguments.done", ...base, name: item.name ?? null, arguments: text });
  } else events.push({ type: "response.output_item.added", output_index: index, item: { ...item, summary: [] } });
  events.push({ type: "response.output_item.done", output_index: index, item });
  return events;
}

/** Every event of a streamed answer, from `response.created` to `response.completed`. */
export function answerEvents(response: JsonObject): JsonObject[] {
  const opening = { ...response, status: "in_progress", output: [], usage: null };
  const events: JsonObject[] = [
    { type: "response.created", response: opening },
    { type: "response.in_progress", response: opening },
  ];
  (response.output as JsonObject[]).forEach((item, index) => events.push(...itemEvents(item, index)));
  events.push({ type: "response.completed", response });
  return events;
}

/** The events of a stalled answer: its text in deltas, and nothing after them. */
export function stallEvents(id: string, messageId: string, body: JsonObject, text: string): JsonObject[] {
  const opening = responseShell(id, body, "in_progress", [], null);
  const base = { output_index: 0, item_id: messageId };
  return [
    { type: "response.created", response: opening },
    { type: "response.in_progress", response: opening },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { id: messageId, type: "message", status: "in_progress", role: "assistant", content: [] },
    },
    {
      type: "response.content_part.added",
      ...base,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    ...deltas(text).map((delta) => ({
      type: "response.output_text.delta",
      ...base,
      content_index: 0,
      delta,
      logprobs: [],
    })),
  ];
}

/** Writes events as the API's server-sent events, each numbered in order as the API numbers them. */
export function responsesEventStream(events: readonly Record<string, unknown>[]): string {
  return events
    .map((event, sequence) => {
      const data = JSON.stringify({ ...event, sequence_number: sequence });
      return `event: ${String(event.type)}\ndata: ${data}\n\n`;
    })
    .join("");
}
