// Builds the openaiChat client the loopback tests use, here so that a child process can rebuild the
// same client from a URL and options alone.
import OpenAI from "openai";
import type { ModelClient } from "../../../src/index.js";
import { openaiChat } from "../../../src/providers/openai/index.js";
import type { ClientOptions } from "../support/harness.js";

/** The model name every loopback test sends. */
export const CHAT_TEST_MODEL = "gpt-loopback";

/** An openaiChat model client over the real `openai` SDK, pointed at a loopback server, retries off. */
export function chatClient(url: string, options: ClientOptions): ModelClient {
  const client = new OpenAI({ baseURL: url, apiKey: "test-key", maxRetries: 0 });
  return openaiChat(client, {
    model: CHAT_TEST_MODEL,
    stream: options.stream,
    ...(options.price === undefined ? {} : { price: options.price }),
    ...(options.parallelToolCalls === undefined ? {} : { parallelToolCalls: options.parallelToolCalls }),
  });
}

export default chatClient;
