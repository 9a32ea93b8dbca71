import { Agent, Decision, Policy, allow, block, tool } from "../../src/index.js";
import type { AgentOptions, Guard, Planner, Verdict } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";

/** A read tool whose answer holds a secret, and a write tool that records what it wrote. */
export function notebook() {
  const written: string[] = [];
  const peeks: string[] = [];
  const peek = tool({
    name: "peek",
    description: "Read the notebook.",
    execute: () => {
      peeks.push("peek");
      return "The code is 4711.";
    },
  });
  const write = writeTextTool({
    name: "write",
    description: "Write a line in the notebook.",
    onWrite: (text) => {
      written.push(text);
      return "written";
    },
  });
  return { peek, write, written, peeks };
}

/** A planner that takes the given decisions in order, then finishes with the observations. */
export function plan(...decisions: Decision[]): Planner {
  return (state) => decisions[state.steps.length] ?? Decision.finish(state.observations());
}

/** An agent over the notebook that may write alone, with the given guards and planner. */
export function notebookAgent(guards: Guard[], planner: Planner, options: Partial<AgentOptions> = {}) {
  const book = notebook();
  const agent = new Agent({
    name: "Scribe",
    tools: [book.peek, book.write],
    planner,
    policy: new Policy({ allowEffects: ["read", "write"], approvalFor: [] }),
    guards,
    ...options,
  });
  return { agent, ...book };
}

/** A guard that blocks at one point with a reason, and counts how often it was asked. */
export function blocking(name: string, point: keyof Omit<Guard, "name">, why: string, asked: string[] = []): Guard {
  const verdict = (): Verdict => {
    asked.push(`${name}.${point}`);
    return block(why);
  };
  return { name, [point]: verdict };
}

/** A guard that allows at every point, and records each time it was asked. */
export function allowing(name: string, asked: string[] = []): Guard {
  const at = (point: string) => (): Verdict => {
    asked.push(`${name}.${point}`);
    return allow();
  };
  return {
    name,
    beforeModel: at("beforeModel"),
    afterModel: at("afterModel"),
    beforeTool: at("beforeTool"),
    afterTool: at("afterTool"),
  };
}
