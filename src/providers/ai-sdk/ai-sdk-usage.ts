import type { FinishReason, ModelUsage } from "../../models/model-client.js";

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function sum(...values: (number | undefined)[]): number | undefined {
  return values.some((value) => value !== undefined)
    ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
    : undefined;
}

/**
 * Leash's usage from an AI SDK usage: V3 and V4's nested `{ inputTokens: { total, noCache, cacheRead,
 * cacheWrite }, outputTokens: { total, text, reasoning } }`, or the flat numbers of older providers
 * (`inputTokens`, `outputTokens`, `cachedInputTokens`, `reasoningTokens`). The AI SDK's input total
 * already counts cached tokens and its output total reasoning ones, as leash's do; a missing total is
 * the sum of its parts, and a count the provider did not give is 0 (or left out when optional).
 *
 * @example
 * ```ts
 * aiSdkUsage({ inputTokens: { total: 100, noCache: 20, cacheRead: 80, cacheWrite: undefined }, outputTokens: { total: 30, text: 10, reasoning: 20 } });
 * // { inputTokens: 100, outputTokens: 30, cacheReadTokens: 80, reasoningTokens: 20 }
 * ```
 */
export function aiSdkUsage(usage: unknown): ModelUsage {
  const raw = record(usage) ?? {};
  const input = record(raw.inputTokens);
  const output = record(raw.outputTokens);
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  let reasoning: number | undefined;
  if (input !== undefined) {
    cacheRead = count(input.cacheRead);
    cacheWrite = count(input.cacheWrite);
    inputTokens = count(input.total) ?? sum(count(input.noCache), cacheRead, cacheWrite);
  } else {
    inputTokens = count(raw.inputTokens);
    cacheRead = count(raw.cachedInputTokens);
  }
  if (output !== undefined) {
    reasoning = count(output.reasoning);
    outputTokens = count(output.total) ?? sum(count(output.text), reasoning);
  } else {
    outputTokens = count(raw.outputTokens);
    reasoning = count(raw.reasoningTokens);
  }
  const normalized: ModelUsage = { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
  if (cacheRead !== undefined) normalized.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) normalized.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) normalized.reasoningTokens = reasoning;
  return normalized;
}

const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  length: "length",
  "content-filter": "content_filter",
  "tool-calls": "tool_calls",
  error: "error",
};

/**
 * Leash's finish reason from an AI SDK one: V3 and V4's `{ unified, raw }` or an older provider's
 * unified string. What leash has no word for (`other`, V4's `interrupted`, `unknown`) is `other`.
 */
export function aiSdkFinish(reason: unknown): FinishReason {
  const unified = typeof reason === "string" ? reason : record(reason)?.unified;
  return typeof unified === "string" && Object.hasOwn(FINISH, unified) ? FINISH[unified]! : "other";
}
