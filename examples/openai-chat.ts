// A leash agent on OpenAI's Chat Completions API, through the `openai` package and `leash/openai`.
// Run it with `npm run build && OPENAI_API_KEY=sk-... npx tsx examples/openai-chat.ts`; without the
// key it says so and does nothing. LEASH_OPENAI_MODEL picks another model (default gpt-5-mini).
import OpenAI from "openai";
import { openaiChat } from "leash/openai";
import { keyIsSet, runNotesAgent } from "./models/notes-agent.js";

const DEFAULT_MODEL = "gpt-5-mini";
const name = process.env.LEASH_OPENAI_MODEL ?? DEFAULT_MODEL;

if (keyIsSet("OPENAI_API_KEY", "openaiChat")) {
  // The client is yours: its key, base URL, retries and timeout are used as they are.
  const model = openaiChat(new OpenAI({ maxRetries: 2 }), {
    model: name,
    // Money per million tokens; the default model's list price. Another model is not charged.
    ...(name === DEFAULT_MODEL ? { price: { input: 0.25, output: 2, cacheRead: 0.025 } } : {}),
    stream: true,
    parallelToolCalls: false,
  });
  await runNotesAgent(model);
}
