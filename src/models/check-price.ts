import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Price } from "./model-client.js";

const money = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;

/**
 * Checks a price, reading each field once, and returns a clean copy (`undefined` for none): money per
 * million tokens, each from 0 to Number.MAX_SAFE_INTEGER. Anything else throws `invalid_option`.
 */
export function checkPrice(price: unknown, label = "`price`"): Price | undefined {
  if (price === undefined) return undefined;
  const fail = (): never => {
    throw new LeashError(
      "invalid_option",
      `Expected ${label} to be { input, output, cacheRead?, cacheWrite? }: money per million tokens, from 0 to Number.MAX_SAFE_INTEGER.`,
    );
  };
  if (typeof price !== "object" || price === null) return fail();
  // A misspelt part (`cachedRead`) would be charged at another rate than the one meant.
  checkOptionKeys(price, ["input", "output", "cacheRead", "cacheWrite"], label.replaceAll("`", ""));
  let fields: Record<string, unknown>;
  try {
    const { input, output, cacheRead, cacheWrite } = price as Record<string, unknown>;
    fields = { input, output, cacheRead, cacheWrite };
  } catch {
    return fail();
  }
  const { input, output, cacheRead, cacheWrite } = fields;
  if (!money(input) || !money(output)) return fail();
  if (cacheRead !== undefined && !money(cacheRead)) return fail();
  if (cacheWrite !== undefined && !money(cacheWrite)) return fail();
  const checked: Price = { input, output };
  if (cacheRead !== undefined) checked.cacheRead = cacheRead;
  if (cacheWrite !== undefined) checked.cacheWrite = cacheWrite;
  return checked;
}
