import type { Planner } from "../index.js";
import { Agent, Decision, MemoryAuditSink } from "../index.js";
import { noopTool } from "./leash-scenarios.js";
import type { Scenario } from "./scenario.js";

/**
 * A rule planner that reads the run's history at every step, as a planner building a prompt does:
 * the number of steps and the last one from `state.steps`, and the last observation from
 * `state.observations()`. It calls the no-op tool until N calls are made, then finishes. It throws
 * if what it reads is not what the run did, so the benchmark cannot time a copy that skips the work.
 */
function readingPlanner(steps: number): Planner {
  return (state) => {
    const count = state.steps.length;
    const last = state.steps.at(-1);
    const observation = state.observations().at(-1) as { tool?: unknown; result?: unknown } | undefined;
    if (count > 0) {
      if (last?.index !== count - 1 || last.outcome !== "executed")
        throw new Error(`The reading planner saw step ${String(last?.index)} as the last of ${count}.`);
      if (observation?.tool !== "noop" || observation.result !== "ok")
        throw new Error("The reading planner saw a last observation that is not the no-op call's.");
    }
    return count < steps ? Decision.act("noop", {}) : Decision.finish("done");
  };
}

/**
 * leash with the memory sink, driven by {@link readingPlanner}: what a planner that reads the
 * history costs per step on top of the bounding and auditing, with no model. Its per-step time should
 * not grow with the run, since the planner's copy of the state is made lazily.
 */
export const leashReadingPlanner: Scenario = {
  id: "leash-reading-planner",
  label: "leash, rule planner reading state.steps and observations()",
  group: "leash",
  open: (steps) => {
    const agent = new Agent({
      tools: [noopTool()],
      planner: readingPlanner(steps),
      limits: { maxSteps: steps + 1 },
      name: "overhead-bench",
      audit: new MemoryAuditSink(),
    });
    return Promise.resolve({
      prepare: () => Promise.resolve(async () => (await agent.run("call the no-op tool")).toolCalls),
      close: () => Promise.resolve(),
    });
  },
};
