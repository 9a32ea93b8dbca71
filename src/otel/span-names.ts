/**
 * The attribute names leash's spans carry: those of the OpenTelemetry GenAI semantic conventions,
 * written out here rather than imported from `@opentelemetry/semantic-conventions` (its GenAI names
 * are experimental and live in an entry point of their own; a few strings are cheaper than a
 * dependency), and leash's own under `leash.`, which point back into the audit trail.
 */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
} as const;

/** The values of `gen_ai.operation.name` leash's spans use. */
export const OPERATION = { agent: "invoke_agent", chat: "chat", tool: "execute_tool" } as const;

/** The general OpenTelemetry attribute for the class of error a failed span ended with. */
export const ERROR_TYPE = "error.type";

/** leash's own attributes: where a span sits in the run and in its hash-chained trail. */
export const LEASH = {
  runId: "leash.run_id",
  step: "leash.step",
  outcome: "leash.outcome",
  effect: "leash.effect",
  cost: "leash.cost",
  tokens: "leash.usage.tokens",
  recordSeq: "leash.record.seq",
  recordDigest: "leash.record.digest",
  firstSeq: "leash.record.first_seq",
  approvalDigest: "leash.approval.digest",
  approvalGranted: "leash.approval.granted",
  approver: "leash.approval.approver",
  decision: "leash.decision",
  paused: "leash.paused",
  resumed: "leash.resumed",
  stopReason: "leash.stop_reason",
  attempt: "leash.attempt",
  retryOf: "leash.retry_of",
  skill: "leash.skill",
  toolStart: "leash.tool.start",
  idempotencyKey: "leash.tool.idempotency_key",
  requestDigest: "leash.model.request_digest",
  responseDigest: "leash.model.response_digest",
  incomplete: "leash.incomplete",
} as const;

/**
 * Step outcomes that end a span with status ERROR: the call failed, or a gate refused it. A person's
 * refusal (`approval_denied`, `approval_stale`), a stop, a rejected answer and a withheld result are
 * outcomes the run handled as designed, carried in `leash.outcome` without marking the span failed.
 */
export const ERROR_OUTCOMES: ReadonlySet<string> = new Set([
  "tool_error",
  "timed_out",
  "interrupted",
  "unknown_tool",
  "invalid_arguments",
  "effect_denied",
  "scope_denied",
  "blocked",
]);
