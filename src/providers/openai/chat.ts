import { LeashError } from "../../errors/index.js";
import type { ModelClient, ModelRequest, ModelResponse, GenerateOptions } from "../../models/model-client.js";
import { type AdapterOptions, checkAdapterOptions, checkModelName } from "../common/adapter-options.js";
import { handBackTool } from "../common/hand-back-tool.js";
import { chatBody } from "./chat-request.js";
import { completionAnswer, modelResponse } from "./chat-response.js";
import { readChatStream } from "./chat-stream.js";
import type { OpenAIChatClient } from "./chat-wire.js";

/** The options of {@link openaiChat}. */
export interface OpenAIChatOptions extends AdapterOptions {
  /** The model name sent with every request, e.g. "gpt-5-mini"; also the client's `name`. */
  model: string;
}

const ADAPTER = "openaiChat";

function checkClient(client: unknown): OpenAIChatClient {
  const create = (client as { chat?: { completions?: { create?: unknown } } } | null | undefined)?.chat?.completions
    ?.create;
  if (typeof create !== "function")
    throw new LeashError(
      "invalid_option",
      `${ADAPTER}: expected the client to be an OpenAI client (new OpenAI() from "openai"), with chat.completions.create.`,
    );
  return client as OpenAIChatClient;
}

/**
 * A model client over OpenAI's Chat Completions API, through a client the caller makes with the
 * `openai` package (retries, timeouts, base URL and key are that client's own settings). Tool calls
 * keep their ids, the conversation goes back in native shapes, and with `stream: true` the text
 * reaches `onText` while the model writes. The run's signal aborts the HTTP request.
 *
 * @example
 * import OpenAI from "openai";
 * import { openaiChat } from "leash/openai";
 *
 * const model = openaiChat(new OpenAI(), { model: "gpt-5-mini", price: { input: 0.25, output: 2, cacheRead: 0.025 }, stream: true });
 * const agent = new Agent({ tools, planner: modelPlanner({ model }) });
 */
export function openaiChat(client: OpenAIChatClient, options: OpenAIChatOptions): ModelClient {
  const checked = checkAdapterOptions(ADAPTER, options, ["model"]);
  const model = checkModelName(ADAPTER, (options as Partial<OpenAIChatOptions> | undefined)?.model);
  const sdk = checkClient(client);
  const generate = async (request: ModelRequest, { signal, onText }: GenerateOptions): Promise<ModelResponse> => {
    const body = chatBody(request, {
      model,
      handBackName: checked.handBackTool,
      parallelToolCalls: checked.parallelToolCalls,
      stream: checked.stream,
    });
    const handBack = handBackTool(request, checked.handBackTool);
    const result = await sdk.chat.completions.create(body, { signal });
    const answer = checked.stream ? await readChatStream(result, signal, onText) : completionAnswer(result);
    return modelResponse(answer, handBack);
  };
  const modelClient: ModelClient = { name: model, generate };
  if (checked.price !== undefined) modelClient.price = checked.price;
  return modelClient;
}
