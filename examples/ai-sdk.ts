// A leash agent on any AI SDK provider model, through `leash/ai-sdk`: here `@ai-sdk/openai`'s Chat
// Completions model; `anthropic("...")`, `google("...")` or an OpenAI-compatible local server work the
// same way. Run it with `npm run build && OPENAI_API_KEY=sk-... npx tsx examples/ai-sdk.ts`; without
// the key it says so and does nothing. LEASH_OPENAI_MODEL picks another model (default gpt-5-mini).
import { createOpenAI } from "@ai-sdk/openai";
import { aiSdkModel } from "leash/ai-sdk";
import { keyIsSet, runNotesAgent } from "./models/notes-agent.js";

const DEFAULT_MODEL = "gpt-5-mini";
const name = process.env.LEASH_OPENAI_MODEL ?? DEFAULT_MODEL;

if (keyIsSet("OPENAI_API_KEY", "aiSdkModel")) {
  // The provider reads OPENAI_API_KEY (and OPENAI_BASE_URL, when set) itself.
  const openai = createOpenAI();
  const model = aiSdkModel(openai.chat(name), {
    ...(name === DEFAULT_MODEL ? { price: { input: 0.25, output: 2, cacheRead: 0.025 } } : {}),
    stream: true,
    parallelToolCalls: false,
  });
  await runNotesAgent(model);
}
