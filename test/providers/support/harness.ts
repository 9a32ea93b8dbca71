// The contract between the shared adapter suite (test/providers/adapter-suite.ts) and each provider's
// loopback harness (test/providers/<provider>/harness.ts). A harness starts an HTTP server on
// 127.0.0.1 that speaks its provider's wire format (JSON and server-sent events), answers from a
// script written in the neutral form below, and refuses, as the real API does, a request the real
// API would refuse. The suite asserts through the public API and through `read(request)`.
import type { Json } from "../../../src/json/index.js";
import type { ModelClient, Price } from "../../../src/index.js";

/** A tool call as the model wrote it: `arguments` is the raw text (it may be malformed JSON). */
export interface ScriptedCall {
  id: string;
  tool: string;
  arguments: string;
}

/**
 * Token counts in leash's normalized meaning (`input` includes the cached tokens, `output` the
 * reasoning ones); the server encodes them as its provider does (Anthropic's `input_tokens`
 * excludes cache reads and writes; OpenAI's `prompt_tokens` includes cached tokens).
 */
export interface ScriptedUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** One reply of the loopback model. */
export type ScriptedReply =
  | {
      type: "answer";
      text?: string;
      calls?: ScriptedCall[];
      usage?: ScriptedUsage;
      /**
       * Opaque reasoning state the provider wants back verbatim (an Anthropic thinking block with its
       * signature, a Responses reasoning item with encrypted content). Ignored by a harness whose
       * `providerState` is false.
       */
      reasoning?: { text: string; signature: string };
      /**
       * More reasoning items, each issued right before the call it names (a model that reasons again
       * between calls). Only the Responses harness gives them out; the others ignore them.
       */
      reasoningBefore?: { callId: string; text: string; signature: string }[];
    }
  /** An HTTP error as the API gives it (429, 500, ...), with the provider's error body. */
  | { type: "error"; status: number; message: string }
  /** A streamed answer that sends `text` in a few deltas, then never finishes (for an abort mid-stream). */
  | { type: "stall"; text: string };

/** A neutral reading of one request the server received, for the suite's assertions. */
export interface ReadRequest {
  model: string;
  system: string;
  /** The tool names offered, the hand-back tool included. */
  tools: string[];
  /** Every tool call the request replays (assistant turns), in order, with the argument text as sent. */
  calls: { id: string; tool: string; arguments: string }[];
  /** Every tool result the request carries, in order. */
  results: { callId: string; content: string }[];
  /** Every user text, in order (the task first). */
  userTexts: string[];
  /** The opaque reasoning items sent back, exactly as they appear in the request body. */
  providerState: Json[];
  stream: boolean;
  /** The provider's parallel-tool-calls switch as sent (`undefined` when not sent). */
  parallelToolCalls: boolean | undefined;
  maxOutputTokens: number | undefined;
}

/** A running loopback server. */
export interface LoopbackServer {
  /** The base URL to give the SDK client. */
  url: string;
  /** Queues replies, answered in order, one per request. A request past the script gets a 500 and is recorded in `refusals`. */
  reply(...replies: ScriptedReply[]): void;
  /** Every request body received, parsed, in order (refused ones included). */
  readonly requests: Json[];
  /** Why each refused request was refused (what the real API would answer 400 to). The suite asserts it stays empty. */
  readonly refusals: string[];
  /** How many responses the client closed before they were complete. */
  readonly closedEarly: number;
  /** Resolves when a stalled stream's connection has been closed by the client. */
  stallClosed(): Promise<void>;
  close(): Promise<void>;
}

/** Options the suite builds a client with. */
export interface ClientOptions {
  stream: boolean;
  price?: Price;
  parallelToolCalls?: boolean;
}

/** One adapter's harness. */
export interface ProviderHarness {
  /** e.g. "openaiChat", "openaiResponses", "anthropicMessages", "aiSdkModel". */
  name: string;
  start(): Promise<LoopbackServer>;
  /** A leash ModelClient over the real SDK, pointed at the server, with retries off. */
  client(url: string, options: ClientOptions): ModelClient;
  /** Reads a request body the server received. */
  read(request: Json): ReadRequest;
  /** Whether the wire carries opaque reasoning state that must go back verbatim. */
  providerState: boolean;
  /**
   * Whether the wire can carry argument text that is not JSON (Anthropic's non-streamed `tool_use.input`
   * is always an object, so a malformed-arguments case is only possible when streaming there).
   */
  malformedArguments(stream: boolean): boolean;
  /**
   * Whether a replayed call's malformed argument text reaches the wire verbatim; default true.
   * `@ai-sdk/openai` rewrites argument text that is not a JSON object to "{}" when it replays a
   * call, so there the suite checks the refusal and the call id, not the text.
   */
  verbatimArguments?: boolean;
  /**
   * Whether the wire reports cache writes (Anthropic's `cache_creation_input_tokens`); default false.
   * Where it does not, a scripted `cacheWrite` is plain input, and the suite's expected cost says so.
   */
  cacheWrites?: boolean;
  /**
   * The provider-shaped items the server issues for a scripted `reasoning` (a thinking block, a
   * reasoning item): what must come back verbatim. When given, the suite deep-equals what the next
   * request carries with it; without it, the suite checks the signature came back unchanged.
   */
  issuedState?(reasoning: { text: string; signature: string }): Json[];
}
