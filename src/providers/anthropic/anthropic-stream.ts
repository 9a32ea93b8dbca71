import type { JsonObject } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import { LeashError } from "../../errors/index.js";
import { parseArguments } from "../common/parse-arguments.js";
import type { ReceivedPart } from "./anthropic-response.js";

/** What a stream of Messages API events amounts to. */
interface StreamedAnswer {
  parts: ReceivedPart[];
  stopReason: string | null | undefined;
  /** The usage fields as the events reported them, unchecked: `normalizedUsage` checks them. */
  usage: Record<string, unknown>;
}

type Building =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; json: string }
  | { type: "thinking"; start: JsonObject; thinking: string; signature: string }
  | { type: "state"; block: JsonObject }
  | { type: "ignored" };

function failed(message: string): LeashError {
  return new LeashError("model_failed", `anthropicMessages: ${message}`);
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

function started(block: JsonObject): Building {
  switch (text(block.type)) {
    case "text":
      return { type: "text", text: text(block.text) };
    case "tool_use":
      if (typeof block.id !== "string" || typeof block.name !== "string")
        throw failed("a streamed tool_use block has no id or name.");
      return { type: "tool_use", id: block.id, name: block.name, json: "" };
    case "thinking":
      return { type: "thinking", start: block, thinking: text(block.thinking), signature: text(block.signature) };
    case "redacted_thinking":
      return { type: "state", block };
    default:
      return { type: "ignored" };
  }
}

function grow(building: Building, delta: JsonObject, onText: ((delta: string) => void) | undefined): void {
  if (delta.type === "text_delta" && building.type === "text") {
    const piece = text(delta.text);
    building.text += piece;
    if (piece !== "") onText?.(piece);
  } else if (delta.type === "input_json_delta" && building.type === "tool_use")
    building.json += text(delta.partial_json);
  else if (delta.type === "thinking_delta" && building.type === "thinking") building.thinking += text(delta.thinking);
  else if (delta.type === "signature_delta" && building.type === "thinking")
    building.signature += text(delta.signature);
}

function finished(building: Building): ReceivedPart | undefined {
  switch (building.type) {
    case "text":
      return { type: "text", text: building.text };
    case "tool_use":
      // Streamed argument text can be cut or malformed: it is parsed here, once, and kept verbatim if it is not JSON.
      return { type: "call", call: parseArguments(building.id, building.name, building.json) };
    case "thinking":
      return {
        type: "state",
        block: { ...building.start, thinking: building.thinking, signature: building.signature },
      };
    case "state":
      return { type: "state", block: building.block };
    case "ignored":
      return undefined;
  }
}

function mergeUsage(usage: Record<string, unknown>, update: unknown): void {
  if (!isJsonObject(update)) return;
  for (const key of [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ] as const) {
    const value = update[key];
    // message_delta's counts are cumulative, and a field it leaves null keeps message_start's value.
    // Anything else is kept as it came, so that normalizedUsage refuses it instead of counting 0.
    if (value !== undefined && value !== null) usage[key] = value;
  }
}

/**
 * Reads a Messages API event stream into the answer's parts, stop reason and usage, calling `onText`
 * per text delta. A stream that ends before `message_stop` (the signal aborted, or the connection
 * dropped) rejects: the SDK ends its iteration quietly when its request is aborted.
 */
export async function readStream(
  events: AsyncIterable<unknown>,
  signal: AbortSignal,
  onText: ((delta: string) => void) | undefined,
): Promise<StreamedAnswer> {
  const building = new Map<number, Building>();
  const parts = new Map<number, ReceivedPart>();
  const answer: StreamedAnswer = { parts: [], stopReason: undefined, usage: {} };
  let stopped = false;
  for await (const event of events) {
    if (!isJsonObject(event)) throw failed("a stream event is not an object.");
    const index = typeof event.index === "number" ? event.index : -1;
    switch (text(event.type)) {
      case "message_start":
        mergeUsage(answer.usage, isJsonObject(event.message) ? event.message.usage : undefined);
        break;
      case "content_block_start":
        if (!isJsonObject(event.content_block)) throw failed("content_block_start has no content_block.");
        building.set(index, started(event.content_block));
        break;
      case "content_block_delta": {
        const block = building.get(index);
        if (block !== undefined && isJsonObject(event.delta)) grow(block, event.delta, onText);
        break;
      }
      case "content_block_stop": {
        const block = building.get(index);
        const part = block === undefined ? undefined : finished(block);
        if (part !== undefined) parts.set(index, part);
        building.delete(index);
        break;
      }
      case "message_delta":
        if (isJsonObject(event.delta) && typeof event.delta.stop_reason === "string")
          answer.stopReason = event.delta.stop_reason;
        mergeUsage(answer.usage, event.usage);
        break;
      case "message_stop":
        stopped = true;
        break;
      case "error": {
        const error = isJsonObject(event.error) ? event.error : {};
        throw failed(`the stream failed: ${text(error.type)} ${text(error.message)}`.trim());
      }
      default:
        break;
    }
  }
  signal.throwIfAborted();
  if (!stopped) throw failed("the stream ended before message_stop.");
  answer.parts = [...parts.entries()].sort(([left], [right]) => left - right).map(([, part]) => part);
  return answer;
}
