// Encodes the neutral scripted replies as Chat Completions answers: a JSON completion, or the chunks
// of a server-sent-event stream with the text in a few deltas and each call's argument text split
// across chunks, as the real API streams them.
import type { ScriptedCall, ScriptedUsage } from "../support/harness.js";

type Chunk = Record<string, unknown>;

/** Usage in OpenAI's meaning: `prompt_tokens` includes the cached tokens, `completion_tokens` the reasoning ones. */
export function chatWireUsage(usage: ScriptedUsage | undefined): Chunk {
  const input = usage?.input ?? 0;
  const output = usage?.output ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: usage?.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage?.reasoning ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** Splits text into up to `parts` pieces, never inside a character. */
export function pieces(text: string, parts = 3): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const size = Math.ceil(characters.length / parts);
  const split: string[] = [];
  for (let start = 0; start < characters.length; start += size)
    split.push(characters.slice(start, start + size).join(""));
  return split;
}

interface Answer {
  text?: string;
  calls?: ScriptedCall[];
  usage?: ScriptedUsage;
}

const finishOf = (answer: Answer): string => ((answer.calls ?? []).length > 0 ? "tool_calls" : "stop");

/** A non-streamed completion for an answer. */
export function chatCompletion(id: string, model: string, answer: Answer): Chunk {
  const calls = answer.calls ?? [];
  const message: Chunk = { role: "assistant", content: answer.text ?? null, refusal: null, annotations: [] };
  if (calls.length > 0)
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.tool, arguments: call.arguments },
    }));
  return {
    id,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(answer) }],
    usage: chatWireUsage(answer.usage),
    service_tier: "default",
    system_fingerprint: null,
  };
}

/** Builds the chunks of one stream, each with the stream's id, model and `usage: null` when usage is asked for. */
export function chunkMaker(id: string, model: string, includeUsage: boolean) {
  return (choice: Chunk | undefined, usage?: Chunk): Chunk => ({
    id,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: choice === undefined ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
}

/** The text chunks a stream opens with: the role, then the text in a few deltas. */
export function textChunks(make: ReturnType<typeof chunkMaker>, text: string | undefined): Chunk[] {
  const chunks = [make({ delta: { role: "assistant", content: "", refusal: null } })];
  for (const piece of pieces(text ?? "")) chunks.push(make({ delta: { content: piece } }));
  return chunks;
}

/** Every chunk of a streamed answer, the final usage chunk included when it is asked for. */
export function chatChunks(id: string, model: string, answer: Answer, includeUsage: boolean): Chunk[] {
  const make = chunkMaker(id, model, includeUsage);
  const chunks = textChunks(make, answer.text);
  for (const [index, call] of (answer.calls ?? []).entries()) {
    chunks.push(
      make({
        delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.tool, arguments: "" } }] },
      }),
    );
    for (const piece of pieces(call.arguments))
      chunks.push(make({ delta: { tool_calls: [{ index, function: { arguments: piece } }] } }));
  }
  chunks.push(make({ delta: {}, finish_reason: finishOf(answer) }));
  if (includeUsage) chunks.push(make(undefined, chatWireUsage(answer.usage)));
  return chunks;
}

/** The error body the API answers with, for a status. */
export function chatError(status: number, message: string): Chunk {
  const type = status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error";
  const code = status === 429 ? "rate_limit_exceeded" : status === 400 ? "invalid_value" : null;
  return { error: { message, type, param: null, code } };
}
