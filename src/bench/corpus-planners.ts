import type { Planner, RunState, Step } from "../index.js";
import { Decision } from "../index.js";

/** A named rule planner of the corpus benchmark. */
interface NamedPlanner {
  name: string;
  planner: Planner;
}

function actsOf(state: RunState, toolName: string): Step[] {
  return state.steps.filter((step) => step.decision.type === "act" && step.decision.tool === toolName);
}

/** The ranked ids the search step returned; none when the search was denied or has not run. */
function hitsOf(state: RunState): string[] {
  const result = actsOf(state, "search")[0]?.result;
  return Array.isArray(result) ? result.filter((id): id is string => typeof id === "string") : [];
}

/**
 * The seed's `one_shot` planner: search for the goal, then answer the first hit (`null` when there is
 * none), so its success is exactly plain search's recall@1.
 */
const oneShot: Planner = (state) => {
  if (actsOf(state, "search").length === 0) return Decision.act("search", { query: state.goal });
  return Decision.finish(hitsOf(state)[0] ?? null);
};

/**
 * The seed's `verify` planner, reading at most `maxReads` hits: search, then read the hits in order
 * and answer the first whose text holds the goal; when none of those read does, answer the first hit.
 */
function verifyPlanner(maxReads = Number.POSITIVE_INFINITY): Planner {
  return (state) => {
    if (actsOf(state, "search").length === 0) return Decision.act("search", { query: state.goal });
    const hits = hitsOf(state);
    const reads = actsOf(state, "read");
    const last = reads.at(-1);
    if (last !== undefined && typeof last.result === "string" && last.result.includes(state.goal)) {
      return Decision.finish(hits[reads.length - 1] ?? null);
    }
    if (reads.length < Math.min(maxReads, hits.length)) return Decision.act("read", { id: hits[reads.length] });
    return Decision.finish(hits[0] ?? null);
  };
}

/** The three planners of the seed, in the order its table lists them. */
export function corpusPlanners(): NamedPlanner[] {
  return [
    { name: "one_shot", planner: oneShot },
    { name: "verify", planner: verifyPlanner() },
    { name: "verify_3", planner: verifyPlanner(3) },
  ];
}

/**
 * A planner that first tries to save a note (a write), then goes on as `planner`: under a policy that
 * allows writes but with no approver, every run must pause before the write runs.
 */
export function writeFirst(planner: Planner): Planner {
  return (state, tools, context) => {
    if (actsOf(state, "save_note").length === 0) return Decision.act("save_note", { text: state.goal });
    return planner(state, tools, context);
  };
}
