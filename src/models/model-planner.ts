import type { ModelTurn } from "../decisions/decision.js";
import { Decision, MAX_REASON_LENGTH } from "../decisions/decision.js";
import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Planner } from "./planner.js";
import { checkPrice } from "./check-price.js";
import type { QueuedCall } from "./conversation.js";
import { queuedCalls } from "./conversation.js";
import type { ModelClient, ModelResponse, Price } from "./model-client.js";
import { DEFAULT_PURPOSE, plannerRequest } from "./planner-request.js";

/** Options of {@link modelPlanner}. */
export interface ModelPlannerOptions {
  /** The model that decides each step. */
  model: ModelClient;
  /** Money per million tokens; default the model's own `price`, else 0. */
  price?: Price;
  /** The system prompt: what the agent is for. */
  purpose?: string;
  /** The most tokens one answer may take, passed on to the model. */
  maxOutputTokens?: number;
}

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
  // A misspelt `price` would make every model call free, and `maxCost` would never stop the run.
  checkOptionKeys(options, ["model", "price", "purpose", "maxOutputTokens"], "modelPlanner(options)");
  const { model, price, purpose, maxOutputTokens } = options;
  if (
    typeof model !== "object" ||
    model === null ||
    typeof model.generate !== "function" ||
    typeof model.name !== "string"
  ) {
    fail("Expected `model` to be a ModelClient: { name, generate(request, { signal }) }.");
  }
  const checked = checkPrice(price, "`price`");
  if (price === undefined) checkPrice(model.price, "the model's `price`");
  if (purpose !== undefined && typeof purpose !== "string") fail("Expected `purpose` to be a string.");
  if (maxOutputTokens !== undefined && (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1)) {
    fail("Expected `maxOutputTokens` to be a positive integer.");
  }
  return { model, price: checked, purpose: purpose ?? DEFAULT_PURPOSE, maxOutputTokens };
}

/** The reason an act step carries: the model's text, cut to what a reason may hold. */
function reasonOf(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  if (text.length <= MAX_REASON_LENGTH) return text;
  // Cut between whole characters: a cut through a surrogate pair would leave a lone half.
  let end = MAX_REASON_LENGTH - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The decision that takes one queued call or hand-back of an answer. */
function decisionOf(next: QueuedCall, turn?: ModelTurn): Decision {
  const model: { callId: string; turn?: ModelTurn; reason?: string; invalidJson?: true } = { callId: next.id };
  if (turn !== undefined) model.turn = turn;
  if (next.type === "handBack") return Decision.finish(next.output, model);
  const reason = reasonOf(next.reason);
  if (reason !== undefined) model.reason = reason;
  if (next.invalidJson === true) model.invalidJson = true;
  return Decision.act(next.tool, next.args, model);
}

/**
 * The first decision of one model answer, carrying the whole answer (`turn`) so that its other
 * calls live in the saved state: its first tool call, else the output handed back, else its text.
 */
function firstDecision(response: ModelResponse, model: string): Decision {
  const text = typeof response.text === "string" && response.text.trim() !== "" ? response.text : undefined;
  const turn: ModelTurn = { calls: response.calls.map((call) => ({ ...call })) };
  if (response.text !== undefined && response.text !== "") turn.text = response.text;
  if (response.handBack !== undefined && response.handBackId !== undefined)
    turn.handBack = { id: response.handBackId, output: response.handBack };
  if (response.providerState !== undefined) turn.providerState = response.providerState;
  const [first] = response.calls;
  if (first !== undefined) {
    const next: QueuedCall = { type: "call", id: first.id, tool: first.tool, args: first.args };
    if (first.invalidJson === true) next.invalidJson = true;
    if (text !== undefined) next.reason = text;
    return decisionOf(next, turn);
  }
  if (turn.handBack !== undefined) return decisionOf({ type: "handBack", ...turn.handBack }, turn);
  if (text !== undefined) return Decision.finish(text, { turn });
  throw new LeashError(
    "model_failed",
    `Model \`${model}\` answered with no tool call, no output handed back and no text.`,
  );
}

/**
 * A planner that asks a model what to do next. It sends the purpose, the conversation built from the
 * run's saved state (the task, then each model answer with its call ids and what came of every
 * call) and the tools through `ctx.callModel` (so the guards see it, the usage is charged and the
 * call is audited), and turns the answer into a decision. Several tool calls in one answer become
 * successive steps, each through every gate, without asking the model again; the calls not taken yet
 * are part of the saved state, so a resume in any process takes them in order. An output handed back
 * finishes the run; plain text finishes with the text. One planner may serve many runs at once.
 *
 * @example
 * const agent = new Agent({
 *   tools: [noteRepair, whereIsTheKey],
 *   planner: modelPlanner({ model, price: { input: 1, output: 5 }, purpose: "You estimate bicycle repairs." }),
 * });
 */
export function modelPlanner(options: ModelPlannerOptions): Planner {
  const { model, price, purpose, maxOutputTokens } = checkOptions(options);
  return async (state, tools, context) => {
    const [queued] = queuedCalls(state);
    if (queued !== undefined) return decisionOf(queued);
    const request = plannerRequest(state, tools, context, { purpose, maxOutputTokens });
    const response = await context.callModel(model, request, price === undefined ? {} : { price });
    return firstDecision(response, model.name);
  };
}
