// A leash agent on OpenAI's Responses API, through the `openai` package and `leash/openai`. Reasoning
// items come back as the answer's provider state and go back verbatim on the next request.
// Run it with `npm run build && OPENAI_API_KEY=sk-... npx tsx examples/openai-responses.ts`; without
// the key it says so and does nothing. LEASH_OPENAI_MODEL picks another model (default gpt-5-mini).
import OpenAI from "openai";
import { openaiResponses } from "leash/openai";
import { keyIsSet, runNotesAgent } from "./models/notes-agent.js";

const DEFAULT_MODEL = "gpt-5-mini";
const name = process.env.LEASH_OPENAI_MODEL ?? DEFAULT_MODEL;

if (keyIsSet("OPENAI_API_KEY", "openaiResponses")) {
  const model = openaiResponses(new OpenAI({ maxRetries: 2 }), {
    model: name,
    ...(name === DEFAULT_MODEL ? { price: { input: 0.25, output: 2, cacheRead: 0.025 } } : {}),
    // Not streamed: the answer arrives whole. `store: false` (the default) keeps nothing at OpenAI.
    stream: false,
    store: false,
  });
  await runNotesAgent(model);
}
