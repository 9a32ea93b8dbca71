import { isAsyncIterable } from "../common/is-async-iterable.js";
import { LeashError } from "../../errors/index.js";
import type { ChatAnswer, ChatRawCall } from "./chat-response.js";

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

function aborted(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("The model call was aborted.", "AbortError");
}

/** A tool call being put together from a stream's deltas. */
interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reads a Chat Completions stream into an answer: each content delta goes to `onText` as it arrives,
 * tool calls are assembled by their `index` (id and name in their first delta, the argument text
 * concatenated), the usage comes from the last chunk.
 *
 * @example
 * const answer = await readChatStream(await client.chat.completions.create(body, { signal }), signal, onText);
 */
export async function readChatStream(
  stream: unknown,
  signal: AbortSignal,
  onText: ((delta: string) => void) | undefined,
): Promise<ChatAnswer> {
  if (!isAsyncIterable(stream))
    throw new LeashError("model_failed", "OpenAI Chat Completions: the client did not return a stream.");
  let text = "";
  let finishReason: unknown;
  let usage: unknown;
  const calls = new Map<number, PartialCall>();
  for await (const value of stream) {
    // Chunks already read when the run is aborted are dropped: no text reaches onText after an abort.
    if (signal.aborted) break;
    const chunk = record(value);
    if (chunk === undefined) continue;
    // Every chunk but the last carries `usage: null`; a usage that is there is kept whatever it is, so a
    // garbled one fails the call instead of being read as none.
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    const choice = record(choices[0]);
    if (choice === undefined) continue;
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finishReason = choice.finish_reason;
    const delta = record(choice.delta);
    if (delta === undefined) continue;
    const content = typeof delta.content === "string" ? delta.content : "";
    const refusal = typeof delta.refusal === "string" ? delta.refusal : "";
    for (const piece of [content, refusal]) {
      if (piece === "") continue;
      text += piece;
      onText?.(piece);
    }
    const toolCalls = Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : [];
    for (const [position, part] of toolCalls.entries()) {
      const toolCall = record(part);
      if (toolCall === undefined) continue;
      const index = typeof toolCall.index === "number" ? toolCall.index : position;
      const fn = record(toolCall.function);
      let call = calls.get(index);
      if (call === undefined) {
        call = { id: "", name: "", arguments: "" };
        calls.set(index, call);
      }
      if (typeof toolCall.id === "string" && toolCall.id !== "") call.id = toolCall.id;
      if (typeof fn?.name === "string" && fn.name !== "") call.name = fn.name;
      if (typeof fn?.arguments === "string") call.arguments += fn.arguments;
    }
  }
  // The SDK ends a stream quietly when its request is aborted: an answer cut short is not an answer.
  if (signal.aborted) throw aborted(signal);
  if (finishReason === undefined)
    throw new LeashError("model_failed", "OpenAI Chat Completions: the stream ended before the answer was finished.");
  const assembled: ChatRawCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id !== "" ? call.id : undefined,
      name: call.name,
      arguments: call.arguments,
    }));
  return { text, calls: assembled, finishReason, usage };
}
