import { Agent, MemoryStore, Policy, allow, block, tool } from "../../src/index.js";
import type { Approver, Guard, Limits, ModelClient, ModelRequest, ModelResponse, Price, Skill } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";

/** One bike in for repair. */
export interface Repair {
  id: string;
  ticket: string;
  fault: string;
  note: string;
  /** Where the customer keeps the spare key: for the mechanic, not for a model. */
  keyIsKept: string;
}

/** What the estimator hands back. */
export interface Estimate {
  hours: number;
  summary?: string;
}

/** The workshop's model price: 1 per million input tokens, 5 per million output tokens. */
export const EVERYDAY_PRICE: Price = { input: 1, output: 5 };

/** Mia, the mechanic the work runs as. */
export const MIA = "mia@workshop.test";

/** Noor, the manager: the only approver the policy allows. */
export const NOOR = "noor@workshop.test";

/** The workshop's own rules for its agents. */
export const shopRules: Guard = {
  name: "Shop rules",
  // No note an agent writes blames the customer.
  beforeTool: (_work, _tool, args) => (JSON.stringify(args).includes("customer's fault") ? block("A note does not blame the customer.") : allow()),
  // Where a key is kept is not something a model is told.
  afterTool: (_work, _tool, result) => (JSON.stringify(result).includes("The key is") ? block("Where a key is kept stays in the workshop.") : allow()),
};

/** The skill of estimating one repair, tried once more when it fails. */
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
  retry: { attempts: 2 },
};

/** Options of {@link workshop}. */
export interface WorkshopOptions {
  /** The model the Estimator asks; default "Everyday", which answers as `stub` says. */
  model?: ModelClient;
  guards?: Guard[];
  approver?: Approver;
  /** Which allowed effects need a person (default none: the estimator changes things alone). */
  approvalFor?: ("read" | "write" | "external")[];
  limits?: Limits;
}

/** How a stubbed model answers: the seed's `ScriptedAnswer.Stub((model, request) => ...)`. */
export type Answer = (request: ModelRequest, options: { signal: AbortSignal }) => Promise<ModelResponse>;

/** The workshop of the seed: its repairs, its two actions, its rules, and the Estimator agent. */
export function workshop(options: WorkshopOptions = {}) {
  let answer: Answer = () => Promise.reject(new Error("No answer was stubbed for the Everyday model."));
  const everyday: ModelClient = { name: "Everyday", generate: (request, signal) => answer(request, signal) };
  const repair: Repair = { id: "repair-7", ticket: "T-7", fault: "rear brake does not bite", note: "", keyIsKept: "under the saddle" };
  const repairs = new Map<string, Repair>([[repair.id, repair]]);
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
      found.note = note as string;
      return `Noted on ${found.ticket}.`;
    },
  });
  const whereIsTheKey = tool({
    name: "WhereIsTheKey",
    description: "Read where the key is kept",
    parameters: { type: "object", properties: { repair: { type: "string" } }, required: ["repair"], additionalProperties: false },
    execute: ({ repair: id }) => `The key is ${find(id).keyIsKept}`,
  });
  const store = new MemoryStore();
  const estimator = new Agent({
    name: "Estimator",
    tools: [noteRepair, whereIsTheKey],
    planner: modelPlanner({ model: options.model ?? everyday, price: EVERYDAY_PRICE, purpose: "You estimate bicycle repairs for a small workshop." }),
    policy: new Policy({
      allowEffects: ["read", "write"],
      approvalFor: options.approvalFor ?? [],
      mayApprove: (approver) => approver === NOOR,
    }),
    limits: { maxCost: 0.05, ...options.limits },
    guards: options.guards ?? [shopRules],
    skills: [estimateRepair],
    store,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
  });
  /** Sets how the Everyday model answers from now on. */
  const stub = (next: Answer): void => {
    answer = next;
  };
  return { repair, repairs, estimator, store, stub };
}

/** The arguments of a call about a repair, as the seed's `RepairArgs` builds them. */
export function repairArgs(repair: Repair, rest: Record<string, string> = {}): { repair: string } & Record<string, string> {
  return { repair: repair.id, ...rest };
}
