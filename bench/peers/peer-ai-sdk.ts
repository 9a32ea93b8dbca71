import type { Scenario } from "../../src/bench/scenario.js";
import { loadModule } from "../../src/bench/scenario.js";
import { noopScript } from "./noop-script.js";

/**
 * `ai` 6: `generateText` with a tool, against `MockLanguageModelV3` (from `ai/test`) scripted to ask
 * for the tool N times, then answer, stepping with `stopWhen: stepCountIs(N + 1)`.
 */
export const aiSdkPeer: Scenario = {
  id: "ai-sdk",
  label: "ai (generateText)",
  group: "peer",
  open: async (steps) => {
    const ai = await loadModule(() => import("ai"), "ai");
    const { MockLanguageModelV3 } = await loadModule(() => import("ai/test"), "ai/test");
    const { z } = await loadModule(() => import("zod"), "zod");
    let calls = 0;
    const noop = ai.tool({
      description: "Does nothing.",
      inputSchema: z.object({}),
      execute: () => {
        calls++;
        return Promise.resolve("ok");
      },
    });
    return {
      prepare: () => {
        const model = new MockLanguageModelV3({ doGenerate: noopScript(steps) });
        return Promise.resolve(async () => {
          const before = calls;
          const result = await ai.generateText({
            model,
            prompt: "call the no-op tool",
            tools: { noop },
            stopWhen: ai.stepCountIs(steps + 1),
          });
          if (result.text !== "done") throw new Error("ai did not finish the scripted run.");
          return calls - before;
        });
      },
      close: () => Promise.resolve(),
    };
  },
};
