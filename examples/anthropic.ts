// A leash agent on Anthropic's Messages API, through `@anthropic-ai/sdk` and `leash/anthropic`.
// Run it with `npm run build && ANTHROPIC_API_KEY=sk-ant-... npx tsx examples/anthropic.ts`; without
// the key it says so and does nothing. LEASH_ANTHROPIC_MODEL picks another model (default
// claude-haiku-4-5).
import Anthropic from "@anthropic-ai/sdk";
import { anthropicMessages } from "leash/anthropic";
import { keyIsSet, runNotesAgent } from "./models/notes-agent.js";

const DEFAULT_MODEL = "claude-haiku-4-5";
const name = process.env.LEASH_ANTHROPIC_MODEL ?? DEFAULT_MODEL;

if (keyIsSet("ANTHROPIC_API_KEY", "anthropicMessages")) {
  const model = anthropicMessages(new Anthropic({ maxRetries: 2 }), {
    model: name,
    // The Messages API requires max_tokens on every call.
    maxTokens: 1024,
    ...(name === DEFAULT_MODEL ? { price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } } : {}),
    stream: true,
  });
  await runNotesAgent(model);
}
