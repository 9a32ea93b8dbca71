import type { Attributes } from "@opentelemetry/api";
import type { AuditRecord } from "../audit/audit-record.js";
import { ERROR_TYPE, GEN_AI, LEASH } from "./span-names.js";

/** A record's `data` as an object: records are read back from stores, so nothing is assumed. */
export function dataOf(record: AuditRecord): Record<string, unknown> {
  return objectOf(record.data);
}

/** A field that is a string, or `undefined`. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A field that is a finite number, or `undefined`. */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A field that is an object, or an empty one. */
export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Attributes without the entries whose value is unknown (OpenTelemetry drops `undefined` anyway). */
export function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  // A for-in, not Object.entries: this runs for every span, and allocates no pairs.
  const kept: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

/**
 * The attributes that tie a span to the record that ended it: anyone holding the trail can find that
 * record by run and seq, and check that its digest is the one the span carries.
 */
export function endedBy(record: AuditRecord): Attributes {
  return { [LEASH.recordSeq]: record.seq, [LEASH.recordDigest]: record.digest };
}

/** The attributes of a model call, from its `model_called` or `model_failed` record. */
export function modelAttributes(record: AuditRecord): Attributes {
  const data = dataOf(record);
  const usage = objectOf(data.usage);
  return defined({
    [GEN_AI.requestModel]: text(data.model),
    [GEN_AI.inputTokens]: count(usage.inputTokens),
    [GEN_AI.outputTokens]: count(usage.outputTokens),
    [GEN_AI.cacheReadTokens]: count(usage.cacheReadTokens),
    [GEN_AI.cacheWriteTokens]: count(usage.cacheWriteTokens),
    [GEN_AI.reasoningTokens]: count(usage.reasoningTokens),
    [LEASH.cost]: count(usage.cost),
    [LEASH.requestDigest]: text(data.requestDigest),
    [LEASH.responseDigest]: text(data.responseDigest),
    [ERROR_TYPE]: record.event === "model_failed" ? (text(data.code) ?? "model_failed") : undefined,
  });
}

/** The attributes a run's stretch ends with, from its `run_ended` or `run_paused` record. */
export function runEndAttributes(record: AuditRecord): Attributes {
  const data = dataOf(record);
  if (record.event === "run_paused") {
    return defined({
      [LEASH.outcome]: "awaiting_approval",
      [LEASH.paused]: true,
      [LEASH.approvalDigest]: text(data.digest),
    });
  }
  const usage = objectOf(data.usage);
  const failure = objectOf(data.failure);
  return defined({
    [LEASH.outcome]: text(data.status),
    [LEASH.stopReason]: text(data.stopReason),
    [LEASH.cost]: count(usage.cost),
    [LEASH.tokens]: count(usage.tokens),
    [ERROR_TYPE]: text(failure.code),
  });
}

/** The attributes a run's stretch starts with, from `run_started` (or `run_resumed`). */
export function runStartAttributes(record: AuditRecord): Attributes {
  const data = dataOf(record);
  if (record.event !== "run_started") return defined({ [LEASH.resumed]: text(data.reason) ?? true });
  return defined({
    [GEN_AI.agentName]: text(data.agent),
    [LEASH.attempt]: count(data.attempt),
    [LEASH.retryOf]: text(data.retryOf),
    [LEASH.skill]: text(data.skill),
  });
}

/** The span event a record adds to its step: an approval asked or answered, a guard's block. */
export function eventAttributes(record: AuditRecord): Attributes {
  const data = dataOf(record);
  return defined({
    [LEASH.recordSeq]: record.seq,
    [LEASH.recordDigest]: record.digest,
    [LEASH.approvalDigest]: text(data.digest),
    [LEASH.approvalGranted]: typeof data.granted === "boolean" ? data.granted : undefined,
    [LEASH.approver]: text(data.approver),
    "leash.guard": text(data.guard),
    "leash.guard.point": text(data.point),
    "leash.guard.why": text(data.why),
    "leash.reason": text(data.reason),
  });
}
