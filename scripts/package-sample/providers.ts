// Builds every adapter over the real SDK client a user constructs, as an installed package: the check
// is that this typechecks under strict TypeScript and runs. No request is sent.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import OpenAI from "openai";
import { z } from "zod";
import { Agent, modelPlanner, tool } from "leash";
import type { ModelClient } from "leash";
import { aiSdkModel } from "leash/ai-sdk";
import { anthropicMessages } from "leash/anthropic";
import { openaiChat, openaiResponses } from "leash/openai";

const price = { input: 0.15, output: 0.6, cacheRead: 0.075 };
const openai = new OpenAI({ apiKey: "not-used", baseURL: "http://127.0.0.1:9/v1", maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: "not-used", baseURL: "http://127.0.0.1:9", maxRetries: 0 });
const provider = createOpenAI({ apiKey: "not-used", baseURL: "http://127.0.0.1:9/v1" });

const models: ModelClient[] = [
  openaiChat(openai, { model: "gpt-4o-mini", price, parallelToolCalls: false, stream: true }),
  openaiResponses(openai, { model: "gpt-4o-mini", price, stream: false }),
  anthropicMessages(anthropic, { model: "claude-haiku", maxTokens: 1024, price, stream: true }),
  aiSdkModel(provider.chat("gpt-4o-mini"), { price, stream: true }),
];

// A typed tool: `topic` is a string to the compiler.
const lookup = tool({
  name: "lookup",
  parameters: z.object({ topic: z.string() }),
  execute: ({ topic }) => topic.toUpperCase(),
});

for (const model of models) new Agent({ tools: [lookup], planner: modelPlanner({ model }) });
console.log(`providers: ready (${models.map((model) => model.name).join(", ")})`);
