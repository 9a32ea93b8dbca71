import { LeashError } from "../errors/index.js";
import type { BudgetChangeOptions, BudgetInfo } from "./budget-info.js";
import { checkBudgetKey, checkChangeOptions } from "./budget-info.js";

/** A limit of a shared budget that a person's answer can raise. */
export type BudgetLimitName = "maxCost" | "maxTokens" | "maxToolCalls";

const LIMIT_NAMES: readonly BudgetLimitName[] = ["maxCost", "maxTokens", "maxToolCalls"];

/** A raise of one limit of a budget, checked: what `RunStore.raiseBudget` takes. @internal */
export interface BudgetRaise {
  key: string;
  limit: BudgetLimitName;
  to: number;
  change: BudgetChangeOptions;
}

/**
 * Checks the arguments of `raiseBudget`: a budget key, a known limit, and a `to` that is a finite
 * number above 0 (a whole number for the counts), else `invalid_option` before anything is written.
 */
export function checkBudgetRaise(key: unknown, limit: unknown, to: unknown, options: unknown): BudgetRaise {
  const checkedKey = checkBudgetKey(key);
  if (typeof limit !== "string" || !(LIMIT_NAMES as readonly string[]).includes(limit)) {
    throw new LeashError(
      "invalid_option",
      "Expected the limit to raise to be `maxCost`, `maxTokens` or `maxToolCalls`.",
    );
  }
  const name = limit as BudgetLimitName;
  const whole = name !== "maxCost";
  if (typeof to !== "number" || !Number.isFinite(to) || to <= 0 || (whole && !Number.isSafeInteger(to))) {
    throw new LeashError(
      "invalid_option",
      `Expected the raise of \`${name}\` to be ${whole ? "a whole number" : "a finite number"} above 0.`,
    );
  }
  return { key: checkedKey, limit: name, to, change: checkChangeOptions(options, "raiseBudget") };
}

/**
 * The budget after a raise, or `undefined` when the raise changes nothing: the limit is not set (a
 * removed limit is never put back) or is at least `to` already (a raise never lowers a limit). Every
 * other limit and the spend are kept as stored.
 */
export function raisedBudget(stored: BudgetInfo, raise: BudgetRaise): BudgetInfo | undefined {
  const now = stored[raise.limit];
  if (now === undefined || now >= raise.to) return undefined;
  return { ...stored, [raise.limit]: raise.to };
}
