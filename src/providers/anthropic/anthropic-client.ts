// The part of `@anthropic-ai/sdk`'s client the adapter calls, typed structurally: the SDK is an
// optional peer, and the built .d.ts must not need it (not even `import type`).
import type { Json, JsonObject } from "../../json/index.js";

/** A content block of an Anthropic message, as it travels on the wire. */
export type AnthropicBlock = JsonObject & { type: string };

/** A message of the Messages API's request: alternating user and assistant turns. */
export interface AnthropicTurn {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** The body of `POST /v1/messages`, as the adapter builds it. */
export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  messages: AnthropicTurn[];
  system?: string;
  tools?: { name: string; description?: string; input_schema: Json }[];
  tool_choice?: { type: "auto"; disable_parallel_tool_use: true };
  thinking?: Json;
  stream?: true;
}

/** The usage object of a Messages API response or stream event. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** A (non-streamed) Messages API response, as far as the adapter reads it. */
export interface AnthropicMessage {
  content: unknown;
  stop_reason?: string | null;
  usage?: AnthropicUsage | null;
}

/**
 * What `anthropicMessages` needs of a client: `new Anthropic({ apiKey, baseURL, maxRetries })` from
 * `@anthropic-ai/sdk` fits. `create` resolves to a message, or, with `stream: true` in the body, to an
 * async iterable of stream events.
 */
export interface AnthropicClientLike {
  messages: {
    create(body: never, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
  };
}
