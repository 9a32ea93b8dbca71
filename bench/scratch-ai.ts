import { generateText, stepCountIs, tool as aiTool, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { z } from "zod";

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
let count = 0;
for (const n of [10, 100, 1000]) {
  let calls = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const index = calls++;
      if (index < n) return { content: [{ type: "tool-call", toolCallId: `call_${index}`, toolName: "noop", input: "{}" }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const t = performance.now();
  const result = await generateText({ model, prompt: "go", tools: { noop: aiTool({ inputSchema: z.object({}), execute: async () => { count++; return "ok"; } }) }, stopWhen: stepCountIs(n + 1) });
  const ms = performance.now() - t;
  console.log(n, result.text, result.steps.length, count, (ms * 1000 / n).toFixed(1), "us/step");
}
