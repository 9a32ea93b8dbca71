// The aiSdkModel harness for the shared adapter suite: the AI SDK's OpenAI provider (`@ai-sdk/openai`
// 3.x, which pairs with ai 6) over Chat Completions, against the same loopback server openaiChat uses.
// Unlike the openai SDK, that provider rewrites argument text that is not a JSON object to "{}" when it
// replays a call: the model can send malformed text (aiSdkModel sees it as invalidJson), but it does
// not go back verbatim on this wire.
import { createOpenAI } from "@ai-sdk/openai";
import type { ModelClient } from "../../../src/index.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import type { ClientOptions, ProviderHarness } from "../support/harness.js";
import { openaiChatHarness } from "../openai/chat-harness.js";

/** The model name every aiSdkModel loopback test sends. */
export const AI_SDK_TEST_MODEL = "gpt-loopback";

/** An aiSdkModel client over `@ai-sdk/openai`'s chat model, pointed at a loopback server. */
export function aiSdkClient(url: string, options: ClientOptions): ModelClient {
  // @ai-sdk/openai does not retry at the doGenerate level; retries are generateText's, not used here.
  const provider = createOpenAI({ baseURL: url, apiKey: "test-key" });
  return aiSdkModel(provider.chat(AI_SDK_TEST_MODEL), {
    stream: options.stream,
    ...(options.price === undefined ? {} : { price: options.price }),
    ...(options.parallelToolCalls === undefined ? {} : { parallelToolCalls: options.parallelToolCalls }),
  });
}

/** The aiSdkModel harness: `@ai-sdk/openai` chat against the loopback Chat Completions server. */
export const aiSdkHarness: ProviderHarness = {
  name: "aiSdkModel",
  start: () => openaiChatHarness.start(),
  client: aiSdkClient,
  read: (request) => openaiChatHarness.read(request),
  providerState: false,
  malformedArguments: () => true,
  verbatimArguments: false,
};
