import type { Json } from "../../json/index.js";
import type { ModelToolCall } from "../../models/model-client.js";

/**
 * Turns a model's argument text into a call's `args`: the parsed JSON, `{}` for empty text (some
 * providers send it for a call with no arguments), or the text itself with `invalidJson: true` when
 * it is not JSON, so the step is refused and the text goes back to the provider verbatim.
 */
export function parseArguments(id: string, tool: string, text: string): ModelToolCall {
  if (text.trim() === "") return { id, tool, args: {} };
  try {
    return { id, tool, args: JSON.parse(text) as Json };
  } catch {
    return { id, tool, args: text, invalidJson: true };
  }
}

/** The argument text of a call as the provider is sent it back: verbatim when it was not JSON. */
export function argumentsText(call: ModelToolCall): string {
  if (call.invalidJson === true && typeof call.args === "string") return call.args;
  return JSON.stringify(call.args);
}

/** A tool message's content as text: a string as it is, anything else as JSON. */
export function contentText(content: Json): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}
