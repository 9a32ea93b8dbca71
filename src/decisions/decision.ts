import type { Json } from "../json/index.js";
import { MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import { LeashError, isLeashError, messageOf } from "../errors/index.js";

/** Tokens and money spent by model calls. */
export interface Usage {
  tokens: number;
  cost: number;
}

/** A tool call of one model answer, with the provider's call id. */
export interface TurnCall {
  id: string;
  tool: string;
  /** The arguments; the model's text itself when it was not JSON (`invalidJson`). */
  args: Json;
  invalidJson?: true;
}

/**
 * One model answer, as it goes back to the model: its text, every call it asked for (with ids), the
 * output it handed back and the provider's opaque state. It is kept on the decision of the answer's
 * first step, so the calls not yet taken live in the saved state and survive a pause or a crash.
 */
export interface ModelTurn {
  text?: string;
  calls: TurnCall[];
  handBack?: { id: string; output: Json };
  providerState?: Json;
}

/** Ask for a tool call. */
export interface ActDecision {
  type: "act";
  tool: string;
  args: Json;
  reason?: string;
  usage?: Usage;
  /** The provider's id of the call this step takes, when a model asked for it. */
  callId?: string;
  /** The model's argument text was not JSON: `args` is the text, and the step is refused (`invalid_json`). */
  invalidJson?: true;
  /** The model answer this step is the first of. */
  turn?: ModelTurn;
}

/** Hand back an answer. */
export interface FinishDecision {
  type: "finish";
  answer: Json;
  usage?: Usage;
  /** The hand-back tool call's id, when a model handed the answer back through it. */
  callId?: string;
  /** The model answer this step is the first of. */
  turn?: ModelTurn;
}

/** What a model planner adds to a decision: the call's id, and the answer it starts. */
interface ModelDecisionOptions {
  callId?: string;
  turn?: ModelTurn;
}

/** What a planner returns: a tool call, or the answer. */
export type Decision = ActDecision | FinishDecision;

/** Builders for {@link Decision}s. */
export const Decision = {
  /**
   * Asks for a call of `tool` with `args`.
   *
   * @example Decision.act("lookup", { topic: "spans" }, { reason: "the goal asks about spans" })
   */
  act(
    tool: string,
    args: unknown = {},
    options: { reason?: string; usage?: Usage; invalidJson?: true } & ModelDecisionOptions = {},
  ): ActDecision {
    const decision: ActDecision = { type: "act", tool, args: args as Json };
    if (options.reason !== undefined) decision.reason = options.reason;
    if (options.usage !== undefined) decision.usage = options.usage;
    if (options.callId !== undefined) decision.callId = options.callId;
    if (options.invalidJson === true) decision.invalidJson = true;
    if (options.turn !== undefined) decision.turn = options.turn;
    return decision;
  },
  /**
   * Hands back `answer` (no answer means `null`).
   *
   * @example Decision.finish(state.steps.at(-1)?.result)
   */
  finish(answer?: unknown, options: { usage?: Usage } & ModelDecisionOptions = {}): FinishDecision {
    const decision: FinishDecision = { type: "finish", answer: (answer ?? null) as Json };
    if (options.usage !== undefined) decision.usage = options.usage;
    if (options.callId !== undefined) decision.callId = options.callId;
    if (options.turn !== undefined) decision.turn = options.turn;
    return decision;
  },
};

/**
 * The largest `tokens` or `cost` one usage may report. A bound keeps the run's sums finite and exact
 * (a sum of safe integers stays JSON), whatever a planner or a model client reports.
 */
export const MAX_USAGE = Number.MAX_SAFE_INTEGER;

type Fields = Record<string, unknown>;

/**
 * Reads each named field of a value exactly once into a plain object. Everything leash takes from
 * user code is read this way and then only the snapshot is checked and used: a getter that answers
 * differently on a second read cannot make what is used differ from what was checked. A getter that
 * throws (or a revoked Proxy) makes `onThrow` decide.
 */
export function snapshotFields(
  value: object,
  keys: readonly string[],
  onThrow: (message: string) => never,
  out: Fields = {},
): Fields {
  for (const key of keys) {
    try {
      out[key] = (value as Fields)[key];
    } catch (error) {
      onThrow(`reading \`${key}\` threw: ${messageOf(error)}`);
    }
  }
  return out;
}

/**
 * Checks a usage (`{ tokens, cost }`) reported by user code, reading each field once, and returns a
 * clean copy; `undefined` when it is not a usage of finite numbers from 0 to {@link MAX_USAGE}.
 */
function parseUsage(value: unknown): Usage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  let fields: Fields;
  try {
    fields = snapshotFields(value, ["tokens", "cost"], (message) => {
      throw new Error(message);
    });
  } catch {
    return undefined;
  }
  const { tokens, cost } = fields;
  const fine = (number: unknown): number is number =>
    typeof number === "number" && Number.isFinite(number) && number >= 0 && number <= MAX_USAGE;
  return fine(tokens) && fine(cost) ? { tokens, cost } : undefined;
}

/** The longest `reason` of an act decision, and the longest `note` of an approval, in characters. */
export const MAX_REASON_LENGTH = 10_000;

// Arguments refused for their shape alone (nested too deep): the decision is kept, with `args` null,
// and the gates deny its step (`invalid_arguments`) instead of failing the run.
const refusedArguments = new WeakMap<ActDecision, string>();

/**
 * Why the arguments of an act decision made by {@link parseDecision} were refused, if they were: they
 * were nested deeper than `MAX_JSON_DEPTH`. Its step is then denied with outcome `invalid_arguments`.
 */
export function argumentsRefusal(decision: ActDecision): string | undefined {
  return refusedArguments.get(decision);
}

/**
 * Checks what a planner returned and gives back a clean JSON copy, or throws `invalid_decision`
 * naming what is wrong. Each field is read exactly once, then only that snapshot is checked and used.
 * Text given as data (`tool`, `reason`) must be well-formed UTF-16: a lone surrogate is refused.
 */
export function parseDecision(value: unknown, bounds: { maxAnswerSize?: number } = {}): Decision {
  if (typeof value !== "object" || value === null)
    return wrongDecision(`expected a Decision, got ${value === null ? "null" : typeof value}.`);
  const raw = snapshotFields(value, HEAD_FIELDS, wrongField);
  // Only the fields of the decision's own type are read, each once.
  snapshotFields(value, raw.type === "act" ? ACT_FIELDS : FINISH_FIELDS, wrongField, raw);
  let usage: Usage | undefined;
  if (raw.usage !== undefined) {
    usage = parseUsage(raw.usage);
    if (usage === undefined)
      wrongDecision(`\`usage\` must be { tokens, cost } of finite numbers from 0 to ${MAX_USAGE}.`);
  }
  if (raw.type === "act") {
    if (typeof raw.tool !== "string") return wrongDecision("`tool` must be a string.");
    if (!raw.tool.isWellFormed()) return wrongDecision("`tool` must be well-formed text (it holds a lone surrogate).");
    if (raw.reason !== undefined && typeof raw.reason !== "string") return wrongDecision("`reason` must be a string.");
    if (typeof raw.reason === "string" && !raw.reason.isWellFormed())
      return wrongDecision("`reason` must be well-formed text (it holds a lone surrogate).");
    if (typeof raw.reason === "string" && raw.reason.length > MAX_REASON_LENGTH)
      return wrongDecision(`\`reason\` must be at most ${MAX_REASON_LENGTH} characters.`);
    let args: Json = null;
    let refusal: string | undefined;
    try {
      args = toJson(raw.args, "the arguments");
    } catch (error) {
      if (!isLeashError(error, "not_json") || error.details.reason !== "too_deep")
        return wrongDecision(messageOf(error));
      refusal = messageOf(error);
    }
    if (raw.invalidJson !== undefined && (raw.invalidJson !== true || typeof args !== "string"))
      return wrongDecision("`invalidJson` must be true, with the model's argument text as `args`.");
    const decision: ActDecision = { type: "act", tool: raw.tool, args };
    if (raw.reason !== undefined) decision.reason = raw.reason;
    if (usage !== undefined) decision.usage = usage;
    if (refusal !== undefined) refusedArguments.set(decision, refusal);
    if (raw.invalidJson === true) decision.invalidJson = true;
    return withModelFields(decision, raw);
  }
  if (raw.type === "finish") {
    let answer: Json;
    try {
      answer = toJson(raw.answer, "the answer", { maxSize: bounds.maxAnswerSize ?? Number.POSITIVE_INFINITY });
    } catch (error) {
      return wrongDecision(messageOf(error));
    }
    const decision: FinishDecision = { type: "finish", answer };
    if (usage !== undefined) decision.usage = usage;
    return withModelFields(decision, raw);
  }
  return wrongDecision('`type` must be "act" or "finish".');
}

// The fields a decision is read by: its type and usage first, then its type's own.
const HEAD_FIELDS = ["type", "usage"] as const;
const ACT_FIELDS = ["tool", "args", "reason", "callId", "invalidJson", "turn"] as const;
const FINISH_FIELDS = ["answer", "callId", "turn"] as const;

function wrongDecision(message: string): never {
  throw new LeashError("invalid_decision", `The planner returned an invalid decision: ${message}`);
}

function wrongField(message: string): never {
  return wrongDecision(`${message}.`);
}

/** The longest call id a decision may carry (some gateways pack a signature into a call's id). */
export const MAX_CALL_ID_LENGTH = 4096;

/** Why a value is not a {@link ModelTurn}, or `undefined` when it is one. */
export function turnProblem(value: Json): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "`turn` must be an object";
  const { text, calls, handBack, providerState, ...rest } = value;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) return `\`turn\` has an unknown key \`${unknown}\``;
  if (text !== undefined && typeof text !== "string") return "`turn.text` must be a string";
  if (!Array.isArray(calls)) return "`turn.calls` must be an array";
  for (const [index, call] of calls.entries()) {
    if (typeof call !== "object" || call === null || Array.isArray(call))
      return `\`turn.calls[${index}]\` must be an object`;
    const { id, tool, args, invalidJson, ...more } = call;
    if (Object.keys(more).length > 0 || !isCallId(id) || typeof tool !== "string" || args === undefined)
      return `\`turn.calls[${index}]\` must be { id, tool, args, invalidJson? }`;
    if (invalidJson !== undefined && (invalidJson !== true || typeof args !== "string"))
      return `\`turn.calls[${index}].invalidJson\` must be true, with the text as \`args\``;
  }
  if (handBack !== undefined) {
    if (typeof handBack !== "object" || handBack === null || Array.isArray(handBack))
      return "`turn.handBack` must be { id, output }";
    const { id, output, ...more } = handBack;
    if (Object.keys(more).length > 0 || !isCallId(id) || output === undefined)
      return "`turn.handBack` must be { id, output }";
  }
  // providerState is opaque: any JSON.
  void providerState;
  return undefined;
}

function isCallId(value: unknown): value is string {
  return typeof value === "string" && value !== "" && value.length <= MAX_CALL_ID_LENGTH && value.isWellFormed();
}

/** Checks and copies the fields a model planner adds (`callId`, `turn`) onto a parsed decision. */
function withModelFields<D extends ActDecision | FinishDecision>(decision: D, raw: Record<string, unknown>): D {
  const wrong = wrongDecision;
  if (raw.callId !== undefined) {
    if (!isCallId(raw.callId))
      return wrong(`\`callId\` must be a non-empty string of at most ${MAX_CALL_ID_LENGTH} characters.`);
    decision.callId = raw.callId;
  }
  if (raw.turn !== undefined) {
    // A turn holds each call's arguments a few levels down: arguments as deep as a step may carry
    // must fit, so that a call too deep is refused as its step, not as the whole answer.
    let turn: Json;
    try {
      turn = toJson(raw.turn, "the model turn", { maxDepth: MAX_RECORD_DEPTH });
    } catch (error) {
      return wrong(messageOf(error));
    }
    const problem = turnProblem(turn);
    if (problem !== undefined) return wrong(`${problem}.`);
    decision.turn = turn as unknown as ModelTurn;
  }
  return decision;
}
