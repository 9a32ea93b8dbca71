import { Decision } from "../decisions/decision.js";
import { LeashError } from "../errors/index.js";
import { canonicalOfJson } from "../json/index.js";
import type { Planner } from "../run/agent-core.js";
import type { RunState } from "../state/run-state.js";
import type { ModelClient, ModelResponse, Price } from "./model-client.js";
import { DEFAULT_PURPOSE, plannerRequest } from "./planner-request.js";

/** Options of {@link modelPlanner}. */
export interface ModelPlannerOptions {
  /** The model that decides each step. */
  model: ModelClient;
  /** Money per million input and output tokens; default the model's own `price`, else 0. */
  price?: Price;
  /** The system prompt: what the agent is for. */
  purpose?: string;
  /** The most tokens one answer may take, passed on to the model. */
  maxOutputTokens?: number;
}

/** Calls a model gave in one answer that are still to be taken, one per planner call. */
interface Queue {
  /** The decision given last, which must be the run's last step before the next is given. */
  given: Decision;
  /** How many steps the run has once `given` was taken. */
  steps: number;
  rest: Decision[];
}

/** Queues of runs that ended before taking every call are dropped, oldest first, past this many. */
const MAX_QUEUED_RUNS = 1024;

function checkOptions(options: ModelPlannerOptions): {
  model: ModelClient;
  price: Price | undefined;
  purpose: string;
  maxOutputTokens: number | undefined;
} {
  const fail = (message: string): never => {
    throw new LeashError("invalid_option", message);
  };
  if (typeof options !== "object" || options === null) fail("Expected the model planner options to be an object.");
  const { model, price, purpose, maxOutputTokens } = options;
  if (
    typeof model !== "object" ||
    model === null ||
    typeof model.generate !== "function" ||
    typeof model.name !== "string"
  ) {
    fail("Expected `model` to be a ModelClient: { name, generate(request, { signal }) }.");
  }
  const money = (value: unknown): boolean =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
  if (
    price !== undefined &&
    (typeof price !== "object" || price === null || !money(price.input) || !money(price.output))
  ) {
    fail("Expected `price` to be { input, output }: money per million tokens, from 0 to Number.MAX_SAFE_INTEGER.");
  }
  const own = price === undefined ? model.price : undefined;
  if (own !== undefined && (typeof own !== "object" || own === null || !money(own.input) || !money(own.output))) {
    fail(
      "Expected the model's `price` to be { input, output }: money per million tokens, from 0 to Number.MAX_SAFE_INTEGER.",
    );
  }
  if (purpose !== undefined && typeof purpose !== "string") fail("Expected `purpose` to be a string.");
  if (maxOutputTokens !== undefined && (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1)) {
    fail("Expected `maxOutputTokens` to be a positive integer.");
  }
  return { model, price, purpose: purpose ?? DEFAULT_PURPOSE, maxOutputTokens };
}

/**
 * Turns one answer of a model into the decisions it asks for, in order: each tool call, then the
 * output handed back, if any; an answer with only text finishes with the text.
 */
export function decisionsOf(response: ModelResponse, model: string): Decision[] {
  const text = typeof response.text === "string" && response.text.trim() !== "" ? response.text : undefined;
  const decisions: Decision[] = response.calls.map((call) =>
    Decision.act(call.tool, call.args, text === undefined ? {} : { reason: text }),
  );
  if (response.handBack !== undefined) decisions.push(Decision.finish(response.handBack));
  else if (decisions.length === 0 && text !== undefined) decisions.push(Decision.finish(text));
  if (decisions.length === 0) {
    throw new LeashError(
      "model_failed",
      `Model \`${model}\` answered with no tool call, no output handed back and no text.`,
    );
  }
  return decisions;
}

/** Whether the run's last step is the decision given last: the queued calls may go on. */
function took(state: RunState, queue: Queue): boolean {
  const last = state.steps.at(-1);
  if (state.steps.length !== queue.steps || last === undefined || last.outcome === null) return false;
  const shape = (decision: Decision): string =>
    canonicalOfJson(decision.type === "act" ? ["act", decision.tool, decision.args] : ["finish", decision.answer]);
  return shape(last.decision) === shape(queue.given);
}

/**
 * A planner that asks a model what to do next: it sends the purpose, the task (a skill's
 * description and brief), the tools and the observations so far through `ctx.callModel` (so the
 * guards see it, the usage is charged and the call is audited), and turns the answer into a
 * decision. Several tool calls in one answer become successive steps, each through every gate,
 * without asking the model again; an output handed back finishes the run; plain text finishes with
 * the text. One planner may serve many runs at once: what is queued is kept per run.
 *
 * @example
 * const agent = new Agent({
 *   tools: [noteRepair, whereIsTheKey],
 *   planner: modelPlanner({ model, price: { input: 1, output: 5 }, purpose: "You estimate bicycle repairs." }),
 * });
 */
export function modelPlanner(options: ModelPlannerOptions): Planner {
  const { model, price, purpose, maxOutputTokens } = checkOptions(options);
  // Keyed by run id: a shared planner serves several runs, and a state copy is fresh at every call.
  const queues = new Map<string, Queue>();

  const give = (state: RunState, decisions: Decision[], steps: number): Decision => {
    const [first, ...rest] = decisions as [Decision, ...Decision[]];
    queues.delete(state.runId);
    if (rest.length > 0) {
      queues.set(state.runId, { given: first, steps, rest });
      const oldest = queues.keys().next();
      if (queues.size > MAX_QUEUED_RUNS && !oldest.done) queues.delete(oldest.value);
    }
    return first;
  };

  return async (state, tools, context) => {
    const queue = queues.get(state.runId);
    // A queued call is taken only when the run took the one before it, so a run that was resumed
    // elsewhere, or went another way, asks the model afresh.
    if (queue !== undefined && took(state, queue)) return give(state, queue.rest, queue.steps + 1);
    queues.delete(state.runId);
    const request = plannerRequest(state, tools, context, { purpose, maxOutputTokens });
    const response = await context.callModel(model, request, price === undefined ? {} : { price });
    return give(state, decisionsOf(response, model.name), state.steps.length + 1);
  };
}
