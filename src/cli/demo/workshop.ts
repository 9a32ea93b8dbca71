import { Agent } from "../../agent/agent.js";
import { Policy } from "../../policy/policy.js";
import { allow, block } from "../../guards/guard.js";
import { modelPlanner } from "../../models/model-planner.js";
import { tool } from "../../tools/tool.js";
import type { Approver } from "../../approvals/approval.js";
import type { AuditSink } from "../../audit/audit-sink.js";
import type { Guard } from "../../guards/guard.js";
import type { Limits } from "../../limits/limits.js";
import type { ModelClient, Price } from "../../models/model-client.js";
import type { RunStore } from "../../stores/run-store.js";
import type { Skill } from "../../skills/skill.js";
import type { Tool } from "../../tools/tool.js";

/** One bike in for repair. */
export interface Repair {
  id: string;
  ticket: string;
  fault: string;
  note: string;
  /** Where the customer keeps the spare key: for the mechanic, not for a model. */
  keyIsKept: string;
}

/** What the Estimator hands back. */
export interface Estimate {
  hours: number;
  summary?: string;
}

/** The workshop's one repair: T-7, whose rear brake does not bite. */
export function repairT7(): Repair {
  return { id: "repair-7", ticket: "T-7", fault: "rear brake does not bite", note: "", keyIsKept: "under the saddle" };
}

/** The person the work runs as: Mia, a mechanic. */
export const MIA = "mia";

/** The only person the workshop's policy lets approve: Noor, the manager. */
export const NOOR = "noor";

/** The Everyday model's price: 1 per million input tokens, 5 per million output tokens. */
export const EVERYDAY_PRICE: Price = { input: 1, output: 5 };

/** The Estimator's purpose: its system prompt. */
export const ESTIMATOR_PURPOSE = "You estimate bicycle repairs for a small workshop.";

/** The workshop's own rules for its agents: a second check, for what the policy cannot say. */
export const shopRules: Guard = {
  name: "Shop rules",
  // No note an agent writes blames the customer.
  beforeTool: (_work, _tool, args) =>
    JSON.stringify(args).includes("customer's fault") ? block("A note does not blame the customer.") : allow(),
  // Where a key is kept is not something a model is told.
  afterTool: (_work, _tool, result) =>
    JSON.stringify(result).includes("The key is") ? block("Where a key is kept stays in the workshop.") : allow(),
};

/** The skill of estimating one repair: its brief, its two tools, its output and its check. */
export const estimateRepair: Skill<Repair, Estimate> = {
  name: "EstimateRepair",
  description: "Estimate one repair.",
  tools: ["NoteRepair", "WhereIsTheKey"],
  output: {
    type: "object",
    properties: { hours: { type: "number" }, summary: { type: "string" } },
    required: ["hours"],
    additionalProperties: false,
  },
  brief: (repair) => `Ticket ${repair.ticket}: ${repair.fault}. Its id is ${repair.id}.`,
  check: (estimate) => (estimate.hours <= 0 ? "An estimate takes some time." : null),
  // Work that fails is tried once more, from the start.
  retry: { attempts: 2 },
};

/**
 * The workshop's two tools over its repairs: `NoteRepair` (a write) and `WhereIsTheKey` (a read).
 * `onRun` is told each call that ran and what it answered, so that a demo can say so as it happens.
 */
export function workshopTools(
  repairs: Map<string, Repair>,
  onRun: (tool: string, answer: string) => void = () => undefined,
): Tool[] {
  const find = (id: unknown): Repair => {
    const found = repairs.get(String(id));
    if (found === undefined) throw new Error(`No repair ${String(id)}.`);
    return found;
  };
  const noteRepair = tool({
    name: "NoteRepair",
    description: "Write a note on the repair",
    parameters: {
      type: "object",
      properties: { repair: { type: "string" }, note: { type: "string", maxLength: 400 } },
      required: ["repair", "note"],
      additionalProperties: false,
    },
    effect: "write",
    execute: ({ repair: id, note }) => {
      const found = find(id);
      // The arguments were checked against the schema before the call: `note` is a string.
      found.note = note as string;
      const answer = `Noted on ${found.ticket}.`;
      onRun("NoteRepair", answer);
      return answer;
    },
  });
  const whereIsTheKey = tool({
    name: "WhereIsTheKey",
    description: "Read where the key is kept",
    parameters: {
      type: "object",
      properties: { repair: { type: "string" } },
      required: ["repair"],
      additionalProperties: false,
    },
    execute: ({ repair: id }) => {
      const answer = `The key is ${find(id).keyIsKept}`;
      onRun("WhereIsTheKey", answer);
      return answer;
    },
  });
  return [noteRepair, whereIsTheKey];
}

/** Options of {@link createEstimator}. */
interface EstimatorOptions {
  /** The store of runs, also the audit sink, so that a state and its records commit together. */
  store: RunStore & AuditSink;
  model: ModelClient;
  tools: Tool[];
  /** Default `[shopRules]`. */
  guards?: Guard[];
  /** Which allowed effects need a person's approval; default none (the demo asks it for writes). */
  approvalFor?: ("read" | "write" | "external")[];
  /** The only person the policy lets approve; default {@link NOOR}. */
  manager?: string;
  /** Who is asked in process when approval is needed; default nobody (the run pauses). */
  approver?: Approver;
  /** Limits on top of the budget of 0.05 a run, which they may change. */
  limits?: Limits;
}

/**
 * The Estimator: an agent that estimates repairs with the workshop's tools under its rules, may read
 * and write, and takes approvals from the manager (Noor) only. Its budget is 0.05 a run.
 */
export function createEstimator(options: EstimatorOptions): Agent {
  const manager = options.manager ?? NOOR;
  return new Agent({
    name: "Estimator",
    tools: options.tools,
    planner: modelPlanner({ model: options.model, price: EVERYDAY_PRICE, purpose: ESTIMATOR_PURPOSE }),
    policy: new Policy({
      allowEffects: ["read", "write"],
      approvalFor: options.approvalFor ?? [],
      mayApprove: (approver) => approver === manager,
    }),
    limits: { maxCost: 0.05, ...options.limits },
    guards: options.guards ?? [shopRules],
    skills: [estimateRepair],
    store: options.store,
    audit: options.store,
    approver: options.approver,
  });
}
