import { isAsyncIterable } from "../common/is-async-iterable.js";
import { LeashError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type { GenerateOptions, ModelClient, ModelRequest, ModelResponse } from "../../models/model-client.js";
import type { AdapterOptions } from "../common/adapter-options.js";
import { checkAdapterOptions, checkModelName } from "../common/adapter-options.js";
import { handBackTool } from "../common/hand-back-tool.js";
import type { AnthropicClientLike, AnthropicMessage } from "./anthropic-client.js";
import { anthropicBody } from "./anthropic-request.js";
import { messageParts, modelResponse } from "./anthropic-response.js";
import { readStream } from "./anthropic-stream.js";

const ADAPTER = "anthropicMessages";

/** Extended thinking as the Messages API takes it, e.g. `{ type: "enabled", budget_tokens: 2048 }`. */
export type AnthropicThinking = JsonObject & { type: string };

/** What `anthropicMessages` takes besides the client. */
export interface AnthropicMessagesOptions extends AdapterOptions {
  /** The model, e.g. "claude-sonnet-4-5". */
  model: string;
  /** `max_tokens` of every call (the API requires it); a request's `maxOutputTokens` wins for that call. */
  maxTokens: number;
  /** Sent as the `thinking` field as it is, to turn extended thinking on. */
  thinking?: AnthropicThinking;
}

function checkOptions(options: AnthropicMessagesOptions) {
  const common = checkAdapterOptions(ADAPTER, options, ["model", "maxTokens", "thinking"]);
  const { model, maxTokens, thinking } = options as unknown as Record<string, unknown>;
  if (typeof maxTokens !== "number" || !Number.isSafeInteger(maxTokens) || maxTokens < 1)
    throw new LeashError(
      "invalid_option",
      `${ADAPTER}: expected \`maxTokens\` to be a positive integer (the API requires max_tokens).`,
    );
  if (thinking !== undefined && !(isJsonObject(thinking) && typeof thinking.type === "string"))
    throw new LeashError("invalid_option", `${ADAPTER}: expected \`thinking\` to be an object with a string \`type\`.`);
  return {
    ...common,
    model: checkModelName(ADAPTER, model),
    maxTokens,
    thinking: thinking as AnthropicThinking | undefined,
  };
}

/**
 * A `ModelClient` over the Anthropic Messages API, through a client from `@anthropic-ai/sdk` that you
 * construct (its retries, timeout and key are yours to set; they are used unchanged).
 *
 * Thinking blocks come back as `providerState` and go back first in their assistant turn, verbatim,
 * signatures and all. A streamed call whose argument text is not JSON goes back as
 * `{ "_invalid_json": "<the text>" }`, since `tool_use.input` must be an object. Usage is normalized:
 * `inputTokens` includes the cache reads and writes that Anthropic's `input_tokens` leaves out.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk";
 * import { anthropicMessages } from "leash/anthropic";
 *
 * const model = anthropicMessages(new Anthropic(), {
 *   model: "claude-sonnet-4-5",
 *   maxTokens: 4096,
 *   price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
 *   stream: true,
 * });
 * const agent = new Agent({ tools, planner: modelPlanner({ model }) });
 * ```
 */
export function anthropicMessages(client: AnthropicClientLike, options: AnthropicMessagesOptions): ModelClient {
  if (typeof client?.messages?.create !== "function")
    throw new LeashError("invalid_option", `${ADAPTER}: expected an @anthropic-ai/sdk client (with messages.create).`);
  const checked = checkOptions(options);
  const model: ModelClient = {
    name: checked.model,
    async generate(request: ModelRequest, { signal, onText }: GenerateOptions): Promise<ModelResponse> {
      const handBack = handBackTool(request, checked.handBackTool);
      const body = anthropicBody(request, {
        model: checked.model,
        maxTokens: checked.maxTokens,
        parallelToolCalls: checked.parallelToolCalls,
        thinking: checked.thinking,
        stream: checked.stream,
        handBack,
        handBackName: checked.handBackTool,
      });
      const result = await client.messages.create(body as never, { signal });
      if (checked.stream) {
        if (!isAsyncIterable(result))
          throw new LeashError("model_failed", `${ADAPTER}: the client did not return a stream.`);
        const answer = await readStream(result, signal, onText);
        return modelResponse(answer.parts, answer.stopReason, answer.usage, handBack);
      }
      if (typeof result !== "object" || result === null)
        throw new LeashError("model_failed", `${ADAPTER}: the client did not return a message.`);
      const message = result as AnthropicMessage;
      return modelResponse(messageParts(message), message.stop_reason, message.usage, handBack);
    },
  };
  if (checked.price !== undefined) model.price = checked.price;
  return model;
}
