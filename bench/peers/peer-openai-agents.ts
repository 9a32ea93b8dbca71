import type { Model, ModelResponse } from "@openai/agents-core";
import type { Scenario } from "../../src/bench/scenario.js";
import { loadModule } from "../../src/bench/scenario.js";

/**
 * `@openai/agents-core`: an Agent with one function tool, run by a `Runner` (tracing off) against a
 * fake `Model` that asks for the tool N times, then gives a final output.
 */
export const openaiAgentsPeer: Scenario = {
  id: "openai-agents",
  label: "@openai/agents-core",
  group: "peer",
  open: async (steps) => {
    const agents = await loadModule(() => import("@openai/agents-core"), "@openai/agents-core");
    const { z } = await loadModule(() => import("zod"), "zod");
    let calls = 0;
    const noop = agents.tool({
      name: "noop",
      description: "Does nothing.",
      parameters: z.object({}),
      execute: () => {
        calls++;
        return Promise.resolve("ok");
      },
    });
    const runner = new agents.Runner({ tracingDisabled: true });
    return {
      prepare: () => {
        let turn = 0;
        const model: Model = {
          getResponse: (): Promise<ModelResponse> => {
            const index = turn++;
            const usage = new agents.Usage();
            if (index < steps) {
              return Promise.resolve({
                usage,
                output: [
                  {
                    type: "function_call",
                    callId: `call_${index}`,
                    name: "noop",
                    arguments: "{}",
                    status: "completed",
                  },
                ],
              });
            }
            return Promise.resolve({
              usage,
              output: [
                {
                  type: "message",
                  role: "assistant",
                  status: "completed",
                  content: [{ type: "output_text", text: "done" }],
                },
              ],
            });
          },
          getStreamedResponse: () => {
            throw new Error("The overhead benchmark does not stream.");
          },
        };
        const agent = new agents.Agent({
          name: "overhead-bench",
          instructions: "Call the no-op tool.",
          model,
          tools: [noop],
        });
        return Promise.resolve(async () => {
          const before = calls;
          const result = await runner.run(agent, "call the no-op tool", { maxTurns: steps + 2 });
          if (result.finalOutput !== "done") throw new Error("@openai/agents-core did not finish the scripted run.");
          return calls - before;
        });
      },
      close: () => Promise.resolve(),
    };
  },
};
