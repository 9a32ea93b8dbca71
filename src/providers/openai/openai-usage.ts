import type { ModelUsage } from "../../models/model-client.js";
import { reportedCount, reportedUsage } from "../common/usage-count.js";

/** The names one OpenAI API gives the fields of its usage. */
interface UsageFields {
  input: string;
  output: string;
  inputDetails: string;
  outputDetails: string;
}

/**
 * An OpenAI usage (Chat Completions or Responses, by the field names given) in leash's meaning. The
 * input count already includes the cached tokens and the output count the reasoning ones, so both are
 * taken as they are; parts are kept when above zero. A count that is there but is not a safe
 * non-negative integer fails the call (`model_failed`); a count left out or `null` is 0.
 */
export function openaiUsage(usage: unknown, adapter: string, names: UsageFields): ModelUsage {
  const source = (field: string) => ({ adapter, field: `usage.${field}` });
  const reported = reportedUsage(usage, { adapter, field: "usage" });
  const details = (field: string) => reportedUsage(reported?.[field], source(field));
  const normalized: ModelUsage = {
    inputTokens: reportedCount(reported?.[names.input], source(names.input)) ?? 0,
    outputTokens: reportedCount(reported?.[names.output], source(names.output)) ?? 0,
  };
  const cacheRead = reportedCount(
    details(names.inputDetails)?.cached_tokens,
    source(`${names.inputDetails}.cached_tokens`),
  );
  const reasoning = reportedCount(
    details(names.outputDetails)?.reasoning_tokens,
    source(`${names.outputDetails}.reasoning_tokens`),
  );
  if (cacheRead !== undefined && cacheRead > 0) normalized.cacheReadTokens = cacheRead;
  if (reasoning !== undefined && reasoning > 0) normalized.reasoningTokens = reasoning;
  return normalized;
}
