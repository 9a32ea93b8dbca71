/**
 * What an outside harness runs side by side: leash's `modelPlanner` over a plain `ModelClient` (an
 * object with `name` and `generate`, answering `{ calls: [{ tool, args }], usage }` with no call ids),
 * leash's rule planner, and the AI SDK's `generateText` over `MockLanguageModelV3`, each built afresh for
 * every run the way a user's program would build it, with nothing warmed up for it.
 */
import type { LeashModule } from "./leash-module.js";
import { loadModule } from "../../src/bench/scenario.js";
import { noopScript } from "./noop-script.js";

/** One framework of the interleaved comparison. */
export interface Contestant {
  /** A stable key, e.g. `leash-plain-model`. */
  id: string;
  /** What the table calls it. */
  label: string;
  /** leash's rows are compared with the peer's. */
  group: "leash" | "peer";
  /**
   * Builds what one run needs (an agent, a model scripted for `steps` calls), untimed, and returns the
   * run itself, which resolves to the number of tool calls it made.
   */
  prepare(steps: number): () => Promise<number>;
}

const ZERO_USAGE = { inputTokens: 0, outputTokens: 0 };

/**
 * A model client as a user writes one by hand: `name` and `generate`, one call of the no-op tool per
 * answer with no call id (leash makes the ids), `steps` times, then the text "done".
 */
function plainClient(steps: number): { name: string; generate: () => Promise<unknown> } {
  let turn = 0;
  return {
    name: "plain-scripted",
    generate: () =>
      Promise.resolve(
        turn++ < steps
          ? { calls: [{ tool: "noop", args: {} }], usage: ZERO_USAGE }
          : { calls: [], text: "done", usage: ZERO_USAGE },
      ),
  };
}

/** A run that must complete with "done", else the comparison would time a failure. */
function checked(label: string, run: () => Promise<{ status: string; answer?: unknown; toolCalls: number }>) {
  return async (): Promise<number> => {
    const state = await run();
    if (state.status !== "completed" || state.answer !== "done")
      throw new Error(`${label} did not finish the scripted run (${state.status}).`);
    return state.toolCalls;
  };
}

/** leash's contestants, over the `leash` given (the built package or the source). */
export function leashContestants(leash: LeashModule): Contestant[] {
  const { Agent, Decision, modelPlanner, noopTool } = leash;
  return [
    {
      id: "leash-plain-model",
      label: "leash, modelPlanner over a plain ModelClient (no call ids)",
      group: "leash",
      prepare: (steps) => {
        const client = plainClient(steps) as unknown as Parameters<typeof modelPlanner>[0]["model"];
        const agent = new Agent({
          tools: [noopTool()],
          planner: modelPlanner({ model: client }),
          limits: { maxSteps: steps + 1 },
        });
        return checked("leash's modelPlanner", () => agent.run("call the no-op tool"));
      },
    },
    {
      id: "leash-rule",
      label: "leash, rule planner",
      group: "leash",
      prepare: (steps) => {
        const agent = new Agent({
          tools: [noopTool()],
          planner: (state) => (state.toolCalls < steps ? Decision.act("noop", {}) : Decision.finish("done")),
          limits: { maxSteps: steps + 1 },
        });
        return checked("leash's rule planner", () => agent.run("call the no-op tool"));
      },
    },
  ];
}

/** The AI SDK's `generateText` with one tool over `MockLanguageModelV3`, as bench/peers/peer-ai-sdk.ts runs it. */
export async function aiSdkContestant(): Promise<Contestant> {
  const ai = await loadModule(() => import("ai"), "ai");
  const { MockLanguageModelV3 } = await loadModule(() => import("ai/test"), "ai/test");
  const { z } = await loadModule(() => import("zod"), "zod");
  return {
    id: "ai-sdk",
    label: "ai (generateText, MockLanguageModelV3)",
    group: "peer",
    prepare: (steps) => {
      let calls = 0;
      const noop = ai.tool({
        description: "Does nothing.",
        inputSchema: z.object({}),
        execute: () => {
          calls++;
          return Promise.resolve("ok");
        },
      });
      const model = new MockLanguageModelV3({ doGenerate: noopScript(steps) });
      return async () => {
        const result = await ai.generateText({
          model,
          prompt: "call the no-op tool",
          tools: { noop },
          stopWhen: ai.stepCountIs(steps + 1),
        });
        if (result.text !== "done") throw new Error("ai did not finish the scripted run.");
        return calls;
      };
    },
  };
}
