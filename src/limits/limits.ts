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
}

/** Why a run stopped. */
export type StopReason = "max_steps" | "max_tool_calls" | "max_cost" | "max_tokens" | "max_duration" | "cancelled";

const KEYS = ["maxSteps", "maxToolCalls", "maxCost", "maxTokens", "maxDurationMs", "maxRejections"] as const;
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
    const integer = INTEGERS.has(key);
    const ok = typeof item === "number" && item >= 0 && (integer ? Number.isInteger(item) : Number.isFinite(item));
    if (!ok) {
      throw new LeashError(
        "invalid_option",
        `Expected \`${key}\` to be ${integer ? "a non-negative integer" : "a finite number of at least 0"}.`,
      );
    }
    out[key as (typeof KEYS)[number]] = item;
  }
  return out;
}

/** The agent's limits overridden, key by key, by a run's. */
export function mergeLimits(base: Limits, override: Limits): Limits {
  return { ...base, ...override };
}
