import { isAsyncIterable } from "../common/is-async-iterable.js";
import { LeashError } from "../../errors/index.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../../models/model-client.js";
import type { AdapterOptions } from "../common/adapter-options.js";
import { checkAdapterOptions, checkModelName } from "../common/adapter-options.js";
import { handBackTool } from "../common/hand-back-tool.js";
import { responsesBody } from "./responses-request.js";
import { readResponsesOutput } from "./responses-response.js";
import { readResponsesStream } from "./responses-stream.js";

/**
 * The part of an `openai` v6 client (`new OpenAI()`) this adapter uses. Typed here, not imported:
 * the SDK is an optional peer that `leash` never loads.
 */
export interface OpenAIResponsesClient {
  responses: {
    create(body: object, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
  };
}

/** What {@link openaiResponses} takes besides its client. */
export interface OpenAIResponsesOptions extends AdapterOptions {
  /** The model name, e.g. `"gpt-5-mini"`. */
  model: string;
  /**
   * Whether OpenAI keeps the response (`store`). Default false: leash sends the whole conversation
   * every time, so nothing needs to be kept, and reasoning items come back with their encrypted
   * content to be sent back verbatim.
   */
  store?: boolean;
}

/**
 * A {@link ModelClient} over OpenAI's Responses API, through a client from the `openai` package.
 * Tool calls keep their `call_id`; reasoning items come back as provider state and are sent back
 * verbatim; with `stream: true` text deltas reach `onText` as the model writes. The run's signal
 * aborts the HTTP request; the SDK's own errors (and its retry setting) pass through unchanged.
 *
 * @example
 * import OpenAI from "openai";
 * import { openaiResponses } from "leash/openai";
 * import { modelPlanner } from "leash";
 *
 * const model = openaiResponses(new OpenAI(), { model: "gpt-5-mini", price: { input: 0.25, output: 2, cacheRead: 0.025 } });
 * const planner = modelPlanner({ model, purpose: "Answer from the files." });
 */
export function openaiResponses(client: OpenAIResponsesClient, options: OpenAIResponsesOptions): ModelClient {
  const checked = checkAdapterOptions("openaiResponses", options, ["model", "store"]);
  const model = checkModelName("openaiResponses", (options as Partial<OpenAIResponsesOptions> | undefined)?.model);
  const store = (options as { store?: unknown }).store;
  if (store !== undefined && typeof store !== "boolean")
    throw new LeashError("invalid_option", "openaiResponses: expected `store` to be a boolean.");
  const responses = (client as Partial<OpenAIResponsesClient> | null | undefined)?.responses;
  if (typeof responses?.create !== "function")
    throw new LeashError(
      "invalid_option",
      "openaiResponses: expected a client from the `openai` package (with `responses.create`).",
    );
  const settings = {
    model,
    parallelToolCalls: checked.parallelToolCalls,
    stream: checked.stream,
    store: store === true,
    handBackName: checked.handBackTool,
  };

  async function generate(
    request: ModelRequest,
    { signal, onText }: { signal: AbortSignal; onText?: (delta: string) => void },
  ): Promise<ModelResponse> {
    const handBack = handBackTool(request, settings.handBackName);
    const body = responsesBody(request, { ...settings, handBack });
    const result = await client.responses.create(body, { signal });
    if (!settings.stream) return readResponsesOutput(result, handBack);
    if (!isAsyncIterable(result))
      throw new LeashError("model_failed", "openaiResponses: the client did not return a stream for `stream: true`.");
    return readResponsesOutput(await readResponsesStream(result, signal, onText), handBack);
  }

  const adapter: ModelClient = { name: model, generate };
  if (checked.price !== undefined) adapter.price = checked.price;
  return adapter;
}
