import type { Json, JsonObject } from "../../json/index.js";
import { toJson } from "../../json/index.js";
import type { ModelResponse, ModelToolCall } from "../../models/model-client.js";
import type { HandBackTool } from "../common/hand-back-tool.js";
import { handBackOutput } from "../common/hand-back-tool.js";
import { parseArguments } from "../common/parse-arguments.js";
import type { AiSdkPart } from "./language-model.js";
import { aiSdkFinish, aiSdkUsage } from "./ai-sdk-usage.js";

/** A part's provider metadata as JSON, or `undefined` when it has none. */
export function metadataOf(part: object): Json | undefined {
  const metadata = (part as { providerMetadata?: unknown }).providerMetadata;
  return metadata === undefined || metadata === null ? undefined : toJson(metadata, "the part's provider metadata");
}

/** A string field of a part, or "" when the provider left it out. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

// V4 file data: bytes are kept as base64 (which the prompt accepts as data too), a URL as its text.
function fileData(data: unknown): Json {
  if (data instanceof Uint8Array) return { type: "data", data: base64(data) };
  if (typeof data === "object" && data !== null) {
    const { type } = data as { type?: unknown };
    if (type === "data" && (data as { data?: unknown }).data instanceof Uint8Array)
      return { ...(data as JsonObject), data: base64((data as { data: Uint8Array }).data) };
    if (type === "url" && (data as { url?: unknown }).url instanceof URL)
      return { ...(data as JsonObject), url: (data as { url: URL }).url.href };
  }
  return toJson(data, "the reasoning file's data");
}

/**
 * Collects an answer from its parts, streamed or not, and makes it leash's {@link ModelResponse}:
 * the text, the calls (a call to the hand-back tool becomes `handBack`), and the provider's opaque
 * parts as `providerState`, to go back verbatim on the next request: in the order they came, the
 * reasoning parts as prompt parts, and for a text or tool-call part that had provider metadata a
 * `{ type: "text", providerOptions }` or `{ type: "tool-call", toolCallId, providerOptions }` place.
 */
export class AnswerBuilder {
  #text = "";
  readonly #calls: ModelToolCall[] = [];
  readonly #state: JsonObject[] = [];
  #textPlace: JsonObject | undefined;
  #handBack: { id: string; output: Json } | undefined;
  readonly #handBackTool: HandBackTool | undefined;

  /** @param handBackTool the hand-back tool offered with the request, if any: a call to it is the answer's `handBack`. */
  constructor(handBackTool: HandBackTool | undefined) {
    this.#handBackTool = handBackTool;
  }

  /** Text the model wrote, appended to what came before. */
  text(text: string): void {
    this.#text += text;
  }

  /**
   * The provider metadata of a text part (Gemini's thought signature). The whole text goes back as one
   * part, with the last metadata given, at the place the first one came.
   */
  textMetadata(metadata: Json | undefined): void {
    if (metadata === undefined) return;
    if (this.#textPlace === undefined) this.#state.push((this.#textPlace = { type: "text" }));
    this.#textPlace.providerOptions = metadata;
  }

  /**
   * A tool call; `input` is the argument text in V3 and V4 (an object from a provider that parsed it).
   * Its provider metadata (Gemini's thought signature) is kept in the state, by call id, in its place.
   */
  call(id: string, tool: string, input: unknown, metadata?: Json): void {
    if (metadata !== undefined) this.#state.push({ type: "tool-call", toolCallId: id, providerOptions: metadata });
    const call =
      typeof input === "string"
        ? parseArguments(id, tool, input)
        : { id, tool, args: toJson(input ?? {}, "the call's input") };
    const handBack = this.#handBackTool;
    if (handBack !== undefined && tool === handBack.name && call.invalidJson !== true) {
      // One hand-back ends the answer's output; a second one in the same answer has nothing to add.
      this.#handBack ??= { id, output: handBackOutput(call.args, handBack) };
      return;
    }
    this.#calls.push(call);
  }

  /** A reasoning part, with its provider metadata (a signature) as the options it goes back with. */
  reasoning(text: string, metadata: Json | undefined): void {
    const part: JsonObject = { type: "reasoning", text };
    if (metadata !== undefined) part.providerOptions = metadata;
    this.#state.push(part);
  }

  /** Another part the provider wants back verbatim (V4's `reasoning-file` and `custom`). */
  statePart(part: AiSdkPart): void {
    const { type } = part;
    const metadata = metadataOf(part);
    const kept: JsonObject = { type };
    if (type === "reasoning-file") {
      kept.mediaType = String((part as { mediaType?: unknown }).mediaType);
      kept.data = fileData((part as { data?: unknown }).data);
    } else {
      kept.kind = String((part as { kind?: unknown }).kind);
    }
    if (metadata !== undefined) kept.providerOptions = metadata;
    this.#state.push(kept);
  }

  /** Takes one content part of a `doGenerate` result (or a whole part of a stream). */
  part(part: AiSdkPart): void {
    const fields = part as unknown as Record<string, unknown>;
    switch (part.type) {
      case "text":
        this.text(textOf(fields.text));
        this.textMetadata(metadataOf(part));
        break;
      case "reasoning":
        this.reasoning(textOf(fields.text), metadataOf(part));
        break;
      case "reasoning-file":
      case "custom":
        this.statePart(part);
        break;
      case "tool-call":
        // A call the provider ran itself (a hosted web search) is not the agent's to take or answer.
        if (fields.providerExecuted === true) break;
        this.call(String(fields.toolCallId), String(fields.toolName), fields.input, metadataOf(part));
        break;
      default:
        // Sources, files, provider tool results and approval requests are not part of leash's answer.
        break;
    }
  }

  /** The answer, with its usage and finish reason as the AI SDK gave them. */
  response(usage: unknown, finishReason: unknown): ModelResponse {
    const response: ModelResponse = { calls: this.#calls, usage: aiSdkUsage(usage), finish: aiSdkFinish(finishReason) };
    if (this.#text !== "") response.text = this.#text;
    if (this.#handBack !== undefined) {
      response.handBack = this.#handBack.output;
      response.handBackId = this.#handBack.id;
    }
    if (this.#state.length > 0) response.providerState = this.#state;
    return response;
  }
}
