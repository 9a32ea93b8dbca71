import type { Json } from "../json/index.js";
import type { JsonSchema } from "../tools/schema-validator.js";
import type { ToolDescription } from "../tools/tool.js";

/**
 * A model's price in money per million tokens. A category it does not name (`cacheRead`,
 * `cacheWrite`) is charged at the `input` price, never free.
 */
export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A tool call a model asked for, with the provider's call id. */
export interface ModelToolCall {
  /** The provider's call id; every one is answered by a tool message before the model is asked again. */
  id: string;
  tool: string;
  /**
   * The arguments. When the model's argument text is not JSON, the text itself, with
   * `invalidJson: true`: the step is refused (`invalid_arguments`, error code `invalid_json`) and the
   * text goes back to the provider verbatim.
   */
  args: Json;
  invalidJson?: true;
}

/** The task, or a reason the model's plain-text answer was refused. */
export interface ModelUserMessage {
  role: "user";
  content: string;
}

/** One answer of the model, as it is sent back to it: its text, its calls, its opaque state. */
export interface ModelAssistantMessage {
  role: "assistant";
  text?: string;
  calls: ModelToolCall[];
  /** The output it handed back, on the hand-back tool's call id, when that output was refused. */
  handBack?: { id: string; output: Json };
  /** The provider's opaque state (reasoning items, thinking blocks), sent back verbatim. */
  providerState?: Json;
}

/** What came of one call: one per call id of the assistant message before it, in order. */
export interface ModelToolMessage {
  role: "tool";
  callId: string;
  tool: string;
  /** The step's outcome (`executed`, `approval_denied`, ...), or `skipped` for a call the run never took. */
  outcome: string;
  /** The result when the step was `executed`; otherwise the step's error message. */
  content: Json;
}

/** One message of a conversation with a model. */
export type ModelMessage = ModelUserMessage | ModelAssistantMessage | ModelToolMessage;

/** What is sent to a model. */
export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolDescription[];
  /** The JSON Schema of what the model may hand back: adapters offer a hand-back tool with it. */
  output?: JsonSchema;
  maxOutputTokens?: number;
}

/**
 * Token counts of one model call, normalized across providers: `inputTokens` counts every input
 * token, cached ones included (`cacheReadTokens` and `cacheWriteTokens` are parts of it);
 * `outputTokens` counts every output token, reasoning included (`reasoningTokens` is part of it).
 */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/** Why a model stopped writing. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "error" | "other";

/** What a model answered. */
export interface ModelResponse {
  calls: ModelToolCall[];
  /** The output handed back, when the model is done. */
  handBack?: Json;
  /** The hand-back tool call's id. */
  handBackId?: string;
  text?: string;
  usage: ModelUsage;
  finish?: FinishReason;
  /** Opaque, sent back verbatim and in the provider's position (thinking blocks first). */
  providerState?: Json;
}

/** What `generate` gets besides the request. */
export interface GenerateOptions {
  /** The run's signal: aborting it aborts the HTTP request. */
  signal: AbortSignal;
  /** Called per text delta while the model writes, when the client streams. */
  onText?: (delta: string) => void;
}

/**
 * The one port to a model: provider adapters (`leash/openai`, `leash/anthropic`, `leash/ai-sdk`)
 * and the scripted model of `leash/testing` implement it.
 */
export interface ModelClient {
  name: string;
  price?: Price;
  generate(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse>;
}
