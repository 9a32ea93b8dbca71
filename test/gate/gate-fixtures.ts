// The tools, policy and gate the gate tests share: a read tool, a write tool that needs approval,
// and counters of how many times each tool ran.
import { Gate, Policy, tool } from "../../src/index.js";
import type { GateOptions, RunStoreWithAudit, Tool } from "../../src/index.js";

/** How many times each tool of {@link gateTools} ran, by name. */
export type RunCounts = Record<string, number>;

/** A read tool `lookup`, a write tool `pay` (approval by default), a tool that throws, and a counter of runs. */
export function gateTools(): { tools: Tool[]; ran: RunCounts } {
  const ran: RunCounts = {};
  const count = (name: string): void => {
    ran[name] = (ran[name] ?? 0) + 1;
  };
  const lookup = tool({
    name: "lookup",
    parameters: {
      type: "object",
      properties: { topic: { type: "string" } },
      required: ["topic"],
      additionalProperties: false,
    },
    execute: ({ topic }) => {
      count("lookup");
      return `page about ${topic as string}`;
    },
  });
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: {
      type: "object",
      properties: { amount: { type: "number" } },
      required: ["amount"],
      additionalProperties: false,
    },
    execute: ({ amount }) => {
      count("pay");
      return { paid: amount };
    },
  });
  const broken = tool({
    name: "broken",
    execute: () => {
      count("broken");
      throw new Error("the printer is on fire");
    },
  });
  const secret = tool({ name: "secret", scopes: ["vault:read"], execute: () => "hidden" });
  return { tools: [lookup, pay, broken, secret] as Tool[], ran };
}

/** A gate over {@link gateTools} that allows reads and writes (writes need approval). */
export function paymentGate(
  store: RunStoreWithAudit,
  options: Partial<GateOptions> = {},
): { gate: Gate; ran: RunCounts } {
  const { tools, ran } = gateTools();
  const gate = new Gate({
    tools,
    store,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    ...options,
  });
  return { gate, ran };
}
