import { LeashError } from "../errors/index.js";

/** The stopping conditions of a run; each is checked before the call it bounds. */
export interface Limits {
  /** Planner decisions. */
  maxSteps?: number;
  /** Tool calls started. */
  maxToolCalls?: number;
  /** Tool cost plus model cost. */
  maxCost?: number;
  maxTokens?: number;
  /** Running time, not time spent waiting for a person. */
  maxDurationMs?: number;
  /** Refused answers the planner may follow with another (default 2). */
  maxRejections?: number;
  /**
   * The limits that pause the run for a person's raise (`Approval.raise`) instead of stopping it, by
   * their stop reason; `"budget"` names the run's shared budget (API.md section 17), whose raise
   * changes the budget for every run that spends from it.
   */
  askToRaise?: AskToRaise[];
}

/** What `limits.askToRaise` may name: a run's own raisable limit, or `"budget"` for its shared budget. */
export type AskToRaise = RaisableLimit | "budget";

/** Why a run's shared budget stops it (API.md section 17): its spend, its tokens or its tool calls. */
export type BudgetStopReason = "budget_cost" | "budget_tokens" | "budget_tool_calls";

/** Every stop reason of a shared budget. */
export const BUDGET_STOP_REASONS: readonly BudgetStopReason[] = ["budget_cost", "budget_tokens", "budget_tool_calls"];

/** Whether a stop reason is a shared budget's. */
export function isBudgetStopReason(reason: string): reason is BudgetStopReason {
  return (BUDGET_STOP_REASONS as readonly string[]).includes(reason);
}

/** The limit a limit request asks a person to raise: a run's own, or its shared budget's, by stop reason. */
export type RequestedLimit = RaisableLimit | BudgetStopReason;

/** Whether a name is one a limit request may carry (a raisable limit or a budget's stop reason). */
export function isRequestedLimit(reason: string): reason is RequestedLimit {
  return isRaisableLimit(reason) || isBudgetStopReason(reason);
}

/** The limits a person may be asked to raise, by their stop reason. */
export type RaisableLimit = "max_cost" | "max_tokens" | "max_tool_calls" | "max_steps";

/** Each raisable limit, by its stop reason, with its key in {@link Limits}. */
export const RAISABLE_LIMITS: Readonly<Record<RaisableLimit, "maxCost" | "maxTokens" | "maxToolCalls" | "maxSteps">> = {
  max_cost: "maxCost",
  max_tokens: "maxTokens",
  max_tool_calls: "maxToolCalls",
  max_steps: "maxSteps",
};

/** Whether a stop reason names a limit a person may be asked to raise. */
export function isRaisableLimit(reason: string): reason is RaisableLimit {
  return Object.hasOwn(RAISABLE_LIMITS, reason);
}

/** Why a run stopped. */
export type StopReason =
  "max_steps" | "max_tool_calls" | "max_cost" | "max_tokens" | "max_duration" | "cancelled" | BudgetStopReason;

/** Every stop reason, in the order the contract lists them. */
export const STOP_REASONS: readonly StopReason[] = [
  "max_steps",
  "max_tool_calls",
  "max_cost",
  "max_tokens",
  "max_duration",
  "cancelled",
  ...BUDGET_STOP_REASONS,
];

const KEYS = [
  "maxSteps",
  "maxToolCalls",
  "maxCost",
  "maxTokens",
  "maxDurationMs",
  "maxRejections",
  "askToRaise",
] as const;
const INTEGERS: ReadonlySet<string> = new Set([
  "maxSteps",
  "maxToolCalls",
  "maxTokens",
  "maxDurationMs",
  "maxRejections",
]);

/** The default number of refused answers the planner may follow with another. */
export const DEFAULT_MAX_REJECTIONS = 2;

/**
 * Checks limits given by a caller and returns a clean copy (unknown keys refused, each value a
 * number of the right kind), so that a typo never silently leaves a run unbounded.
 */
export function checkLimits(value: unknown, where = "limits"): Limits {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LeashError("invalid_option", `Expected \`${where}\` to be an object.`);
  }
  const out: Limits = {};
  for (const [key, item] of Object.entries(value)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new LeashError("invalid_option", `Unknown limit \`${key}\` in \`${where}\`; known: ${KEYS.join(", ")}.`);
    }
    if (item === undefined) continue;
    if (key === "askToRaise") {
      out.askToRaise = checkAskToRaise(item, where);
      continue;
    }
    const integer = INTEGERS.has(key);
    const ok = typeof item === "number" && item >= 0 && (integer ? Number.isInteger(item) : Number.isFinite(item));
    if (!ok) {
      throw new LeashError(
        "invalid_option",
        `Expected \`${key}\` to be ${integer ? "a non-negative integer" : "a finite number of at least 0"}.`,
      );
    }
    out[key as Exclude<(typeof KEYS)[number], "askToRaise">] = item;
  }
  return out;
}

/** `askToRaise`, checked: an array of distinct names of raisable limits (or `"budget"`), copied. */
function checkAskToRaise(value: unknown, where: string): AskToRaise[] {
  const known = [...Object.keys(RAISABLE_LIMITS), "budget"].join(", ");
  if (!Array.isArray(value))
    throw new LeashError("invalid_option", `Expected \`${where}.askToRaise\` to be an array of: ${known}.`);
  const out: AskToRaise[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== "string" || !(isRaisableLimit(item) || item === "budget"))
      throw new LeashError(
        "invalid_option",
        `Unknown limit ${JSON.stringify(item) ?? String(item)} in \`${where}.askToRaise\`; known: ${known}.`,
      );
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

/**
 * Whether the run's limits ask a person to raise this limit rather than stop: a raisable limit
 * named in `askToRaise`, or a shared budget's stop reason when `askToRaise` names `"budget"`.
 */
export function asksToRaise(limits: Limits, reason: string): reason is RequestedLimit {
  if (isBudgetStopReason(reason)) return limits.askToRaise?.includes("budget") === true;
  return isRaisableLimit(reason) && limits.askToRaise?.includes(reason) === true;
}

/** The agent's limits overridden, key by key, by a run's. */
export function mergeLimits(base: Limits, override: Limits): Limits {
  return { ...base, ...override };
}
