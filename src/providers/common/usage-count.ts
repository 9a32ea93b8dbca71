import { LeashError } from "../../errors/index.js";

/** Where a reported count came from, for the message of a refusal: the adapter and the provider's field. */
export interface UsageSource {
  /** The adapter's name, e.g. "openaiChat". */
  adapter: string;
  /** The provider's field, e.g. "usage.prompt_tokens". */
  field: string;
}

function shown(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number") return String(value);
  if (typeof value === "bigint") return `the bigint ${String(value)}`;
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * A token count a provider reported, checked: a safe non-negative integer is returned as it is, an
 * absent count (`undefined` or `null`) is `undefined`, and anything else fails the model call with
 * `model_failed`. Usage is what `maxTokens` and `maxCost` are charged from, so a count leash cannot read
 * exactly (2^60, 1500000.5, the string "2000000") is never taken as 0: a run that cannot count its
 * spend must not go on spending.
 *
 * @example
 * reportedCount(1200, { adapter: "openaiChat", field: "usage.prompt_tokens" }); // 1200
 * reportedCount(null, { adapter: "openaiChat", field: "usage.prompt_tokens" }); // undefined
 * reportedCount("2000000", { adapter: "openaiChat", field: "usage.prompt_tokens" }); // throws model_failed
 */
export function reportedCount(value: unknown, source: UsageSource): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw new LeashError(
    "model_failed",
    `${source.adapter}: the provider reported \`${source.field}\` as ${shown(value)}; a token count must be a safe non-negative integer.`,
  );
}

/**
 * The sum of checked token counts, refused with `model_failed` when it is no longer a safe integer
 * (each part can be safe while their sum is not, and an inexact total would undercharge).
 */
export function reportedSum(counts: readonly (number | undefined)[], source: UsageSource): number {
  const total = counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
  if (!Number.isSafeInteger(total)) {
    throw new LeashError(
      "model_failed",
      `${source.adapter}: the provider's counts for \`${source.field}\` add up past the largest safe integer.`,
    );
  }
  return total;
}

/**
 * A provider's usage object, checked to be an object (or absent: `undefined` for `undefined` and
 * `null`). A usage that is there but is not an object fails the call with `model_failed`.
 */
export function reportedUsage(value: unknown, source: UsageSource): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new LeashError(
    "model_failed",
    `${source.adapter}: the provider reported \`${source.field}\` as ${shown(value)}; usage must be an object.`,
  );
}
