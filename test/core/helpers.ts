import { Decision, tool } from "../../src/index.js";
import type { Planner } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";

export const PAGES: Record<string, string> = {
  spans: "A chunk's text is a slice of its source.",
  ids: "64 hex digits.",
};

/** The seed's `lookup` tool: a read tool that needs the docs:read scope. */
export function lookupTool(calls: string[] = []) {
  return tool({
    name: "lookup",
    description: "Return the page about a topic.",
    parameters: {
      type: "object",
      properties: { topic: { type: "string", enum: Object.keys(PAGES).sort() } },
      required: ["topic"],
      additionalProperties: false,
    },
    scopes: ["docs:read"],
    execute: ({ topic }: { topic: string }) => {
      calls.push(topic);
      return PAGES[topic] ?? "";
    },
  });
}

/** The seed's first planner: look up "spans", then answer with what came back. */
export const lookupPlanner: Planner = (state) => {
  if (state.steps.length === 0) return Decision.act("lookup", { topic: "spans" });
  return Decision.finish(state.steps.at(-1)?.result);
};

/** The seed's `save` tool: a write tool that records what it wrote. */
export function saveTool(written: string[], options: { idempotent?: boolean } = {}) {
  return writeTextTool({
    name: "save",
    ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
    onWrite: (text) => {
      written.push(text);
      return "saved";
    },
  });
}

/** The seed's writer planner: save "the report", then answer with the step's outcome. */
export const writerPlanner: Planner = (state) => {
  if (state.steps.length === 0) return Decision.act("save", { text: "the report" });
  return Decision.finish(state.steps.at(-1)?.outcome);
};

/** A clock that moves only when told to, for reproducible runs. */
export function manualClock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let now = start;
  return {
    clock: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Ids "id-1", "id-2", ... for reproducible runs. */
export function sequentialIds(prefix = "id") {
  let next = 0;
  return () => `${prefix}-${++next}`;
}
