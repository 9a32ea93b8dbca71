import { Agent, Decision, Policy, RunState, tool } from "leash";
import type { AuditSink, RunStateJson, RunStore } from "leash";

/** How many runs are added at once while a store is filled. */
const AT_ONCE = 50;

/**
 * Runs up to this number are made by the agent; each run after them is a copy of the saved state of
 * an agent-made one, created in the store under its own id and times (a store of 50,000 runs made
 * through the agent would take most of an hour on two busy cores). Only the agent-made runs have an
 * audit trail; a listing reads states (or summaries), not trails.
 */
export const AGENT_RUNS = 1000;

const read = tool({
  name: "read",
  effect: "read",
  execute: ({ page }) => `the text of page ${JSON.stringify(page)}`,
  parameters: {
    type: "object",
    properties: { page: { type: "integer" } },
    required: ["page"],
    additionalProperties: false,
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
  execute: () => "paid",
});

/**
 * What run number `index` does, so that a store holds the mix a deployment's history does: most runs
 * completed after 1 to 4 reads, one in ten waiting for a person to approve a payment, one in twenty
 * failed (its planner threw), one in twenty stopped by its step limit. Goals vary in length, some past
 * the 200 characters a listing shows.
 */
function planOf(index: number): { kind: "completed" | "awaiting" | "failed" | "stopped"; reads: number; goal: string } {
  const reads = 1 + (index % 4);
  const goal =
    index % 7 === 0
      ? `Reconcile the invoices of customer ${index} against ${"the ledger, the bank statement and the receipts, ".repeat(5)}and report`
      : `Summarize page ${index} for the weekly report`;
  const bucket = index % 20;
  const kind = bucket < 2 ? "awaiting" : bucket === 2 ? "failed" : bucket === 3 ? "stopped" : "completed";
  return { kind, reads, goal };
}

/** An agent whose planner does what {@link planOf} says for the run whose id ends in its number. */
function fillingAgent(store: RunStore & AuditSink): Agent {
  return new Agent({
    name: "Listings",
    tools: [read, pay],
    store,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    limits: { maxSteps: 4 },
    planner: (state) => {
      const index = Number(state.runId.slice(1));
      const plan = planOf(index);
      const done = state.steps.length;
      if (plan.kind === "failed" && done === 1) throw new Error("The page could not be parsed.");
      if (plan.kind === "stopped") return Decision.act("read", { page: done });
      if (done < plan.reads) return Decision.act("read", { page: done });
      if (plan.kind === "awaiting") return Decision.act("pay", { amount: 10 + (index % 90) });
      return Decision.finish(`Page ${index}: done.`);
    },
  });
}

/** A run like `template` under another id, created now, as long as the template took. */
function copyOf(template: RunStateJson, runId: string): RunState {
  const took = Date.parse(template.updatedAt) - Date.parse(template.createdAt);
  const createdAt = new Date();
  const updatedAt = new Date(createdAt.getTime() + took).toISOString();
  const json = { ...template, runId, createdAt: createdAt.toISOString(), updatedAt } as RunStateJson & {
    pending?: { runId: string; requestedAt: string };
  };
  if (json.pending !== undefined) json.pending = { ...json.pending, runId, requestedAt: updatedAt };
  return RunState.fromJSON(json);
}

/** The id of run number `index`: `r` and six digits, so ids sort as they were made. */
function runIdOf(index: number): string {
  return `r${index.toString().padStart(6, "0")}`;
}

/**
 * Adds runs `from` to `to - 1` to a store by running them through a real agent (its planner, gates,
 * saves and audit records), {@link AT_ONCE} at a time, and reports progress on standard error.
 */
export async function fillStore(store: RunStore & AuditSink, from: number, to: number, label: string): Promise<void> {
  const agent = fillingAgent(store);
  const templates = new Map<number, RunStateJson>();
  let next = from;
  let lastReport = Date.now();
  const worker = async (): Promise<void> => {
    while (next < to) {
      const index = next++;
      if (index < AGENT_RUNS) {
        const state = await agent.run(planOf(index).goal, { runId: runIdOf(index) });
        if (state.status === "running") throw new Error(`Run ${state.runId} ended running.`);
      } else {
        const from = index % AGENT_RUNS;
        let template = templates.get(from);
        if (template === undefined) {
          const loaded = await store.load(runIdOf(from));
          if (loaded === null) throw new Error(`The agent-made run ${runIdOf(from)} is not in the store.`);
          template = loaded.toJSON();
          templates.set(from, template);
        }
        await store.create(copyOf(template, runIdOf(index)));
      }
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        process.stderr.write(`${label}: ${index + 1 - from} of ${to - from} runs added\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}
