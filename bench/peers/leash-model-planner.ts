import type { Scenario } from "../../src/bench/scenario.js";
import { loadModule } from "../../src/bench/scenario.js";
import { noopScript } from "./noop-script.js";
import type { LeashModule } from "./leash-module.js";

/**
 * leash's `modelPlanner` over `aiSdkModel` over the AI SDK's `MockLanguageModelV3`, scripted exactly
 * as the `generateText` peer's model is (one call of the no-op tool per answer N times, then the text
 * "done"), with the memory sink: the two rows compare like for like, the model's own cost included.
 * Needs `ai` (a dev dependency), so it is one of the peers of bench/overhead.ts, not of the shipped
 * `leash bench overhead`. `leash` is where leash is taken from (the built package or the source).
 */
export function leashModelPlanner(leash: LeashModule): Scenario {
  const { Agent, MemoryAuditSink, modelPlanner, aiSdkModel, noopTool } = leash;
  return {
    id: "leash-model-planner",
    label: "leash, modelPlanner over aiSdkModel",
    group: "leash",
    open: async (steps) => {
      const { MockLanguageModelV3 } = await loadModule(() => import("ai/test"), "ai/test");
      return {
        prepare: () => {
          // A trail per run, as generateText keeps each call's steps: a sink shared by every run
          // of the benchmark would make each run pay the collector for all the runs before it.
          const audit = new MemoryAuditSink();
          const model = new MockLanguageModelV3({ doGenerate: noopScript(steps) });
          const agent = new Agent({
            tools: [noopTool()],
            planner: modelPlanner({ model: aiSdkModel(model) }),
            limits: { maxSteps: steps + 1 },
            name: "overhead-bench",
            audit,
          });
          return Promise.resolve(async () => {
            const result = await agent.run("call the no-op tool");
            if (result.status !== "completed" || result.answer !== "done")
              throw new Error(`leash did not finish the scripted run (${result.status}).`);
            return result.toolCalls;
          });
        },
        close: () => Promise.resolve(),
      };
    },
  };
}
