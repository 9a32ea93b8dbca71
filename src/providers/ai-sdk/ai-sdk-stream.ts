import type { Json } from "../../json/index.js";
import type { ModelResponse } from "../../models/model-client.js";
import type { AnswerBuilder } from "./ai-sdk-answer.js";
import { metadataOf, textOf } from "./ai-sdk-answer.js";
import type { AiSdkPart, AiSdkStreamReader } from "./language-model.js";

/** Why a model call failed, as an Error: an error part may carry any value. */
export function failureOf(error: unknown, fallback: string): Error {
  if (error instanceof Error) return error;
  const message = typeof error === "string" ? error : (JSON.stringify(error) ?? fallback);
  return new Error(message || fallback, { cause: error });
}

/** Resolves with the next read, or rejects with the signal's reason as soon as it aborts. */
function readOrAbort(reader: AiSdkStreamReader, signal: AbortSignal): Promise<{ done: boolean; value?: AiSdkPart }> {
  if (signal.aborted) return Promise.reject(failureOf(signal.reason, "The model call was aborted."));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(failureOf(signal.reason, "The model call was aborted."));
    signal.addEventListener("abort", onAbort, { once: true });
    reader.read().then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(failureOf(error, "The model's stream failed."));
      },
    );
  });
}

interface Pending {
  text: string;
  metadata: Json | undefined;
}

/**
 * Reads an AI SDK stream to the end and makes it leash's answer: text deltas go to `onText` as they
 * come, reasoning deltas are joined per id with the last provider metadata given (the signature
 * arrives late), a tool call is taken from its `tool-call` part (or, if a provider gives none, from
 * its `tool-input-*` deltas), and the `finish` part gives usage and finish reason. An `error` part,
 * an abort, or a stream that ends without `finish` rejects: an answer cut short is not acted on.
 *
 * @example
 * ```ts
 * const { stream } = await model.doStream(options);
 * const response = await readAiSdkStream(stream.getReader(), builder, { signal, onText });
 * ```
 */
export async function readAiSdkStream(
  reader: AiSdkStreamReader,
  answer: AnswerBuilder,
  options: { signal: AbortSignal; onText?: ((delta: string) => void) | undefined },
): Promise<ModelResponse> {
  const reasoning = new Map<string, Pending>();
  const inputs = new Map<string, { tool: string; text: string }>();
  const called = new Set<string>();
  try {
    for (;;) {
      const { done, value: part } = await readOrAbort(reader, options.signal);
      if (done || part === undefined) break;
      const fields = part as unknown as Record<string, unknown>;
      switch (part.type) {
        case "text-start":
        case "text-end":
          answer.textMetadata(metadataOf(part));
          break;
        case "text-delta": {
          answer.textMetadata(metadataOf(part));
          const delta = textOf(fields.delta);
          if (delta === "") break;
          answer.text(delta);
          options.onText?.(delta);
          break;
        }
        case "reasoning-start":
        case "reasoning-delta":
        case "reasoning-end": {
          const id = String(fields.id);
          let pending = reasoning.get(id);
          if (pending === undefined) reasoning.set(id, (pending = { text: "", metadata: undefined }));
          if (part.type === "reasoning-delta") pending.text += textOf(fields.delta);
          pending.metadata = metadataOf(part) ?? pending.metadata;
          if (part.type === "reasoning-end") {
            answer.reasoning(pending.text, pending.metadata);
            reasoning.delete(id);
          }
          break;
        }
        case "tool-input-start":
          if (fields.providerExecuted !== true)
            inputs.set(String(fields.id), { tool: String(fields.toolName), text: "" });
          break;
        case "tool-input-delta": {
          const input = inputs.get(String(fields.id));
          if (input !== undefined) input.text += textOf(fields.delta);
          break;
        }
        case "tool-call":
          called.add(String(fields.toolCallId));
          answer.part(part);
          break;
        case "reasoning-file":
        case "custom":
          answer.statePart(part);
          break;
        case "error":
          throw failureOf(fields.error, "The model's stream sent an error.");
        case "finish":
          // Reasoning a provider never closed still goes back, so its state is not lost.
          for (const pending of reasoning.values()) answer.reasoning(pending.text, pending.metadata);
          for (const [id, input] of inputs) if (!called.has(id)) answer.call(id, input.tool, input.text);
          return answer.response(fields.usage, fields.finishReason);
        default:
          // stream-start, response-metadata, tool-input-end, sources, raw chunks, pings.
          break;
      }
    }
    throw new Error("The model's stream ended without a finish part: the answer may be incomplete.");
  } catch (error) {
    // Closes the HTTP response of a stream left early (an error part, an abort).
    reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    try {
      reader.releaseLock();
    } catch {
      // A read still pending after an abort: the cancel above already settles it.
    }
  }
}
