// The seed tests' setup: the workshop of seed 001 (its repair, tools, rules, skill and Estimator, as
// the package defines them for `leash demo`), on a memory store, with a model the tests script.
import { MemoryStore } from "../../src/index.js";
import type { Approver, Guard, Limits, ModelClient, ModelRequest, ModelResponse } from "../../src/index.js";
import { createEstimator, repairT7, workshopTools } from "../../src/cli/demo/workshop.js";
import type { Repair } from "../../src/cli/demo/workshop.js";

export { estimateRepair, shopRules } from "../../src/cli/demo/workshop.js";
export type { Estimate, Repair } from "../../src/cli/demo/workshop.js";

/** Mia, the mechanic the work runs as, by the email the seed gives her. */
export const MIA = "mia@workshop.test";

/** Noor, the manager: the only approver the policy allows, by the email the seed gives her. */
export const NOOR = "noor@workshop.test";

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
  const repair = repairT7();
  const repairs = new Map<string, Repair>([[repair.id, repair]]);
  const store = new MemoryStore();
  const estimator = createEstimator({
    ...options,
    store,
    model: options.model ?? everyday,
    tools: workshopTools(repairs),
    manager: NOOR,
  });
  /** Sets how the Everyday model answers from now on. */
  const stub = (next: Answer): void => {
    answer = next;
  };
  return { repair, repairs, estimator, store, stub };
}

/** The arguments of a call about a repair, as the seed's `RepairArgs` builds them. */
export function repairArgs(
  repair: Repair,
  rest: Record<string, string> = {},
): { repair: string } & Record<string, string> {
  return { repair: repair.id, ...rest };
}
