// The parts of the AI SDK's provider specification (`LanguageModelV3` of @ai-sdk/provider 3 = ai 6,
// `LanguageModelV4` of @ai-sdk/provider 4 = ai 7) that this adapter sends and reads, written out
// structurally: the SDK is an optional peer, so nothing here (nor in the built .d.ts) may import it.
// What is sent is typed exactly; what is read is typed loosely and checked where it is used, since a
// provider package of another minor version may add parts and fields.

/** Provider-specific options of a prompt part, keyed by provider (`{ anthropic: { signature } }`). */
export type AiSdkProviderOptions = Record<string, Record<string, unknown>>;

/** A text part of a user or assistant message. */
export interface AiSdkTextPart {
  type: "text";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

/** A tool call an assistant message replays: `input` is the arguments object (or text the model wrote that was not JSON). */
export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: AiSdkProviderOptions;
}

/** What a tool result tells the model. */
export type AiSdkToolResultOutput =
  { type: "text"; value: string } | { type: "json"; value: unknown } | { type: "error-text"; value: string };

/** The answer to one tool call. */
export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
}

/**
 * A part of the provider's opaque state sent back verbatim in an assistant message: a reasoning part
 * with its provider options (an Anthropic signature, an OpenAI reasoning item id), and in V4 a
 * reasoning file or a custom part.
 */
export interface AiSdkStatePart {
  type: "reasoning" | "reasoning-file" | "custom";
  [key: string]: unknown;
}

/** One message of the prompt. */
export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: AiSdkTextPart[] }
  | { role: "assistant"; content: (AiSdkStatePart | AiSdkTextPart | AiSdkToolCallPart)[] }
  | { role: "tool"; content: AiSdkToolResultPart[] };

/** A function tool offered to the model. */
export interface AiSdkFunctionTool {
  type: "function";
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** What `doGenerate` and `doStream` are called with. */
export interface AiSdkCallOptions {
  prompt: AiSdkMessage[];
  tools?: AiSdkFunctionTool[];
  toolChoice?: { type: "auto" };
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
  providerOptions?: AiSdkProviderOptions;
}

/** A part of a result's content or of a stream, as read: its `type`, then whatever that type carries. */
export interface AiSdkPart {
  readonly type: string;
}

/** What `doGenerate` resolves to (only what the adapter reads). */
export interface AiSdkGenerateResult {
  content: readonly AiSdkPart[];
  /** V3 and V4: `{ unified, raw }`; an older provider: the unified string itself. */
  finishReason: unknown;
  /** V3 and V4: `{ inputTokens: { total, noCache, cacheRead, cacheWrite }, outputTokens: { total, text, reasoning } }`. */
  usage: unknown;
}

/** The reader of a web `ReadableStream`, as far as the adapter uses it. */
export interface AiSdkStreamReader {
  read(): Promise<{ done: boolean; value?: AiSdkPart }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** What `doStream` resolves to (only what the adapter reads). */
export interface AiSdkStreamResult {
  stream: { getReader(): AiSdkStreamReader };
}

/**
 * An AI SDK language model: what a provider package returns, e.g. `openai.chat("gpt-4.1")` from
 * `@ai-sdk/openai` or `anthropic("claude-sonnet-4-5")` from `@ai-sdk/anthropic`. Specification `v3`
 * (ai 6) and `v4` (ai 7) are accepted.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v3" | "v4";
  readonly provider: string;
  readonly modelId: string;
  // The parameter is typed `never` so that every provider's model fits whatever its specification
  // version's call options are; the adapter calls it with {@link AiSdkCallOptions}, which both accept.
  doGenerate(options: never): PromiseLike<AiSdkGenerateResult>;
  doStream(options: never): PromiseLike<AiSdkStreamResult>;
}
