import type { Json } from "../json/index.js";
import { isJsonObject, toJson } from "../json/index.js";
import { LeashError } from "../errors/index.js";

/** Tokens and money spent by model calls. */
export interface Usage {
  tokens: number;
  cost: number;
}

/** Ask for a tool call. */
export interface ActDecision {
  type: "act";
  tool: string;
  args: Json;
  reason?: string;
  usage?: Usage;
}

/** Hand back an answer. */
export interface FinishDecision {
  type: "finish";
  answer: Json;
  usage?: Usage;
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
  act(tool: string, args: unknown = {}, options: { reason?: string; usage?: Usage } = {}): ActDecision {
    const decision: ActDecision = { type: "act", tool, args: args as Json };
    if (options.reason !== undefined) decision.reason = options.reason;
    if (options.usage !== undefined) decision.usage = options.usage;
    return decision;
  },
  /**
   * Hands back `answer` (no answer means `null`).
   *
   * @example Decision.finish(state.steps.at(-1)?.result)
   */
  finish(answer?: unknown, options: { usage?: Usage } = {}): FinishDecision {
    const decision: FinishDecision = { type: "finish", answer: (answer ?? null) as Json };
    if (options.usage !== undefined) decision.usage = options.usage;
    return decision;
  },
};

function isUsage(value: unknown): value is Usage {
  if (!isJsonObject(value)) return false;
  const { tokens, cost } = value as Record<string, unknown>;
  return (
    typeof tokens === "number" &&
    Number.isFinite(tokens) &&
    tokens >= 0 &&
    typeof cost === "number" &&
    Number.isFinite(cost) &&
    cost >= 0
  );
}

/**
 * Checks what a planner returned and gives back a clean JSON copy, or throws `invalid_decision`
 * naming what is wrong.
 */
export function parseDecision(value: unknown): Decision {
  const wrong = (message: string): never => {
    throw new LeashError("invalid_decision", `The planner returned an invalid decision: ${message}`);
  };
  if (typeof value !== "object" || value === null)
    wrong(`expected a Decision, got ${value === null ? "null" : typeof value}.`);
  const raw = value as Record<string, unknown>;
  if (raw.usage !== undefined && !isUsage(raw.usage)) wrong("`usage` must be { tokens, cost } of finite numbers >= 0.");
  const usage =
    raw.usage === undefined ? undefined : { tokens: (raw.usage as Usage).tokens, cost: (raw.usage as Usage).cost };
  const json: (what: string, item: unknown) => Json = (what, item) => {
    try {
      return toJson(item, what);
    } catch (error) {
      return wrong((error as Error).message);
    }
  };
  if (raw.type === "act") {
    if (typeof raw.tool !== "string") wrong("`tool` must be a string.");
    if (raw.reason !== undefined && typeof raw.reason !== "string") wrong("`reason` must be a string.");
    const decision: ActDecision = { type: "act", tool: raw.tool as string, args: json("the arguments", raw.args) };
    if (raw.reason !== undefined) decision.reason = raw.reason as string;
    if (usage !== undefined) decision.usage = usage;
    return decision;
  }
  if (raw.type === "finish") {
    const decision: FinishDecision = { type: "finish", answer: json("the answer", raw.answer) };
    if (usage !== undefined) decision.usage = usage;
    return decision;
  }
  return wrong('`type` must be "act" or "finish".');
}
