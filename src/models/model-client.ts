import type { Json } from "../json/index.js";
import type { JsonSchema } from "../tools/schema-validator.js";
import type { ToolDescription } from "../tools/tool.js";

/** A model's price in money per million input and output tokens. */
export interface Price {
  input: number;
  output: number;
}

/** One message of a conversation with a model. */
export interface ModelMessage {
  role: "user" | "assistant" | "tool";
  content: string;
}

/** What is sent to a model. */
export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolDescription[];
  /** The JSON Schema of what the model may hand back. */
  output?: JsonSchema;
  maxOutputTokens?: number;
}

/** A tool call a model asked for. */
export interface ModelToolCall {
  tool: string;
  args: Json;
}

/** What a model answered. */
export interface ModelResponse {
  calls: ModelToolCall[];
  /** The output handed back, when the model is done. */
  handBack?: Json;
  text?: string;
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * The one port to a model: provider adapters (OpenAI, Anthropic, the AI SDK) and the scripted model
 * of `leash/testing` implement it.
 */
export interface ModelClient {
  name: string;
  price?: Price;
  generate(request: ModelRequest, options: { signal: AbortSignal }): Promise<ModelResponse>;
}
