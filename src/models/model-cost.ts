import type { ModelUsage, Price } from "./model-client.js";

/**
 * What one model call cost, by the price per million tokens: the input tokens that were neither
 * read from nor written to a cache at the input price, cache reads and writes at their own prices
 * (the input price when the price does not name them: never free), output at the output price.
 * A usage whose cache counts exceed its input (a client's inconsistency) charges the cache counts and
 * no uncached input, rather than a negative amount.
 */
export function modelCost(usage: ModelUsage, price: Price): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  return (
    (uncached * price.input +
      cacheRead * (price.cacheRead ?? price.input) +
      cacheWrite * (price.cacheWrite ?? price.input) +
      usage.outputTokens * price.output) /
    1e6
  );
}
