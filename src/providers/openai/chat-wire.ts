// The parts of the Chat Completions wire format the adapter writes and reads, typed structurally so
// that nothing under src/ needs the `openai` package (an optional peer), not even its types.

/** A tool's parameters: a JSON Schema object (the API refuses a boolean schema). */
export type ChatSchema = { [key: string]: unknown };

/** A tool call as an assistant message carries it. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One message of a Chat Completions request. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A function tool offered to the model. */
export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: ChatSchema };
}

/** The body of a Chat Completions request, as the adapter sends it. */
export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  parallel_tool_calls?: boolean;
  max_completion_tokens?: number;
  stream?: true;
  stream_options?: { include_usage: true };
}

/** The usage object of a completion or of a stream's last chunk. */
export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * The client the adapter drives: what `new OpenAI()` from the `openai` package has (v6), reduced to
 * the one method it calls. `create` resolves to a completion, or to an async iterable of chunks when
 * the body asks for a stream; `options.signal` aborts the HTTP request.
 */
export interface OpenAIChatClient {
  chat: {
    completions: {
      create(body: ChatBody, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
    };
  };
}
