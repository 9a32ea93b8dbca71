import type { FinishReason, ModelUsage } from "../../models/model-client.js";
import { reportedCount, reportedSum, reportedUsage } from "../common/usage-count.js";

const count = (value: unknown, field: string): number | undefined =>
  reportedCount(value, { adapter: "aiSdkModel", field: `usage.${field}` });

function record(value: unknown, field: string): Record<string, unknown> | undefined {
  return reportedUsage(value, { adapter: "aiSdkModel", field });
}

function sum(field: string, ...values: (number | undefined)[]): number | undefined {
  return values.some((value) => value !== undefined)
    ? reportedSum(values, { adapter: "aiSdkModel", field: `usage.${field}` })
    : undefined;
}

/**
 * Leash's usage from an AI SDK usage: V3 and V4's nested `{ inputTokens: { total, noCache, cacheRead,
 * cacheWrite }, outputTokens: { total, text, reasoning } }`, or the flat numbers of older providers
 * (`inputTokens`, `outputTokens`, `cachedInputTokens`, `reasoningTokens`). The AI SDK's input total
 * already counts cached tokens and its output total reasoning ones, as leash's do; a missing total is
 * the sum of its parts, and a count the provider did not give is 0 (or left out when optional). A count
 * that is there but is not a safe non-negative integer fails the call (`model_failed`).
 *
 * @example
 * ```ts
 * aiSdkUsage({ inputTokens: { total: 100, noCache: 20, cacheRead: 80, cacheWrite: undefined }, outputTokens: { total: 30, text: 10, reasoning: 20 } });
 * // { inputTokens: 100, outputTokens: 30, cacheReadTokens: 80, reasoningTokens: 20 }
 * ```
 */
export function aiSdkUsage(usage: unknown): ModelUsage {
  const raw = record(usage, "usage") ?? {};
  // V3 and V4 nest the counts in objects; older providers give the numbers flat.
  const input = typeof raw.inputTokens === "object" ? record(raw.inputTokens, "usage.inputTokens") : undefined;
  const output = typeof raw.outputTokens === "object" ? record(raw.outputTokens, "usage.outputTokens") : undefined;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  let reasoning: number | undefined;
  if (input !== undefined) {
    cacheRead = count(input.cacheRead, "inputTokens.cacheRead");
    cacheWrite = count(input.cacheWrite, "inputTokens.cacheWrite");
    inputTokens =
      count(input.total, "inputTokens.total") ??
      sum("inputTokens", count(input.noCache, "inputTokens.noCache"), cacheRead, cacheWrite);
  } else {
    inputTokens = count(raw.inputTokens, "inputTokens");
    cacheRead = count(raw.cachedInputTokens, "cachedInputTokens");
  }
  if (output !== undefined) {
    reasoning = count(output.reasoning, "outputTokens.reasoning");
    outputTokens =
      count(output.total, "outputTokens.total") ??
      sum("outputTokens", count(output.text, "outputTokens.text"), reasoning);
  } else {
    outputTokens = count(raw.outputTokens, "outputTokens");
    reasoning = count(raw.reasoningTokens, "reasoningTokens");
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
  const unified =
    typeof reason === "string"
      ? reason
      : typeof reason === "object" && reason !== null
        ? (reason as Record<string, unknown>).unified
        : undefined;
  return typeof unified === "string" && Object.hasOwn(FINISH, unified) ? FINISH[unified]! : "other";
}
