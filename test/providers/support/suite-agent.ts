// The small app the shared adapter suite drives through each adapter: three tools (two reads and a
// write) behind a model planner. It lives here, not in the suite, so that a child process can build
// the very same agent over the same SQLite file and resume a run another process paused.
import { appendFileSync } from "node:fs";
import { Agent, Policy, modelPlanner, tool } from "../../../src/index.js";
import type { AuditSink, Effect, ModelClient, RunStore } from "../../../src/index.js";

/** The system prompt every suite run sends. */
export const SUITE_PURPOSE = "You answer questions about bicycle repairs with the tools given.";

/** The only person the suite's policy lets approve. */
export const SUITE_APPROVER = "noor";

/** What `lookup` answers, by topic. */
export const PAGES: Readonly<Record<string, string>> = {
  brakes: "Rear brakes that do not bite usually need new pads.",
  chains: "A stretched chain skips under load.",
};

/** Options of {@link suiteAgent}. */
export interface SuiteAgentOptions {
  model: ModelClient;
  /** A store that is also the audit sink (SQLite, for a run resumed in another process). */
  store?: RunStore & AuditSink;
  /** Which effects need a person's approval; default none. */
  approvalFor?: Effect[];
  /**
   * Where each tool call that ran is written, one line per call (`tool args`): a file, so that
   * calls made in another process are counted too, or an array in this process.
   */
  calls: string | string[];
}

/**
 * The suite's agent: `lookup` (read), `save` (write) and `tally` (read), every effect allowed, the
 * given effects approved by {@link SUITE_APPROVER} only.
 */
export function suiteAgent(options: SuiteAgentOptions): Agent {
  const ran = (line: string): void => {
    if (typeof options.calls === "string") appendFileSync(options.calls, `${line}\n`);
    else options.calls.push(line);
  };
  const lookup = tool({
    name: "lookup",
    description: "Return the workshop's page about a topic.",
    parameters: {
      type: "object",
      properties: { topic: { type: "string", enum: Object.keys(PAGES) } },
      required: ["topic"],
      additionalProperties: false,
    },
    // The arguments were checked against the schema before the call: `topic` is a string.
    execute: ({ topic }) => {
      ran(`lookup ${topic as string}`);
      return PAGES[topic as string] ?? "";
    },
  });
  const save = tool({
    name: "save",
    description: "Save a line to the workshop's notebook.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    effect: "write",
    execute: ({ text }) => {
      ran(`save ${text as string}`);
      return "saved";
    },
  });
  const tally = tool({
    name: "tally",
    description: "Count the notebook's lines.",
    execute: () => {
      ran("tally");
      return 1;
    },
  });
  return new Agent({
    name: "Suite",
    tools: [lookup, save, tally],
    planner: modelPlanner({ model: options.model, purpose: SUITE_PURPOSE }),
    policy: new Policy({
      allowEffects: ["read", "write"],
      approvalFor: options.approvalFor ?? [],
      mayApprove: (approver) => approver === SUITE_APPROVER,
    }),
    limits: { maxSteps: 12 },
    ...(options.store === undefined ? {} : { store: options.store, audit: options.store }),
  });
}
