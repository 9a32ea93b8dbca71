import { LeashError } from "../../errors/index.js";

type Fields = Record<string, unknown>;

const FINAL_EVENTS: ReadonlySet<unknown> = new Set(["response.completed", "response.incomplete", "response.failed"]);

/**
 * Reads a Responses API event stream: each `response.output_text.delta` goes to `onText` as it
 * arrives, and the final `Response` object is taken from `response.completed` (or
 * `response.incomplete` / `response.failed`). An `error` event rejects, and so does a stream the run's
 * signal cut short (the SDK ends its iterator quietly on an abort) or one that ends without a final event.
 */
export async function readResponsesStream(
  stream: AsyncIterable<unknown>,
  signal: AbortSignal,
  onText: ((delta: string) => void) | undefined,
): Promise<unknown> {
  let final: unknown;
  for await (const value of stream) {
    const event = (typeof value === "object" && value !== null ? value : {}) as Fields;
    if (event.type === "response.output_text.delta") {
      if (typeof event.delta === "string" && event.delta !== "") onText?.(event.delta);
    } else if (FINAL_EVENTS.has(event.type)) final = event.response;
    else if (event.type === "error") {
      const code = typeof event.code === "string" ? ` (${event.code})` : "";
      const message = typeof event.message === "string" ? event.message : "no message";
      throw new LeashError("model_failed", `The Responses API stream reported an error${code}: ${message}`, {
        details: { code: event.code ?? null },
      });
    }
  }
  signal.throwIfAborted();
  if (final === undefined)
    throw new LeashError("model_failed", "The Responses API stream ended without a final response event.");
  return final;
}
