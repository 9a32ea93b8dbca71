import type { Tracer } from "@opentelemetry/api";
import type { AuditRecord } from "../audit/audit-record.js";
import { count, dataOf, defined, endedBy, modelAttributes, objectOf, text } from "./record-attributes.js";
import type { RunTrack, StepSpan, ToolSpan } from "./run-track.js";
import type { Opened } from "./span-kit.js";
import { endSpan, openSpan } from "./span-kit.js";
import { ERROR_OUTCOMES, GEN_AI, LEASH, OPERATION } from "./span-names.js";

/** A model call's span, made whole from its record: it starts where the run's record before it was made. */
export function modelSpan(
  tracer: Tracer,
  track: RunTrack,
  record: AuditRecord,
  start: string,
  parent: Opened & { index?: number },
): void {
  const model = text(dataOf(record).model) ?? "model";
  const opened = openSpan(tracer, {
    name: `${OPERATION.chat} ${model}`,
    kind: "client",
    start,
    parent: parent.context,
    attributes: defined({
      [GEN_AI.operation]: OPERATION.chat,
      [GEN_AI.conversationId]: track.runId,
      [LEASH.runId]: track.runId,
      [LEASH.step]: parent.index ?? track.step?.index,
    }),
  });
  const failed = record.event === "model_failed";
  const data = dataOf(record);
  endSpan(opened, {
    end: record.at,
    attributes: { ...modelAttributes(record), ...endedBy(record) },
    error: failed ? { type: text(data.code) ?? "model_failed", message: text(data.message) } : undefined,
  });
}

/** Opens the span of a tool call at its `tool_started` record, as the step's child. */
export function openTool(
  tracer: Tracer,
  track: RunTrack,
  step: StepSpan,
  record: AuditRecord,
  effectOf: (tool: string) => string | undefined,
): void {
  if (track.tool !== undefined) endTool(track, track.tool, undefined);
  const data = dataOf(record);
  const tool = text(data.tool) ?? step.tool ?? "tool";
  const effect = step.effect ?? effectOf(tool);
  const opened = openSpan(tracer, {
    name: `${OPERATION.tool} ${tool}`,
    kind: "internal",
    start: record.at,
    parent: step.context,
    attributes: defined({
      [GEN_AI.operation]: OPERATION.tool,
      [GEN_AI.toolName]: tool,
      [GEN_AI.toolCallId]: step.callId,
      [LEASH.runId]: track.runId,
      [LEASH.step]: step.index,
      [LEASH.effect]: effect,
      [LEASH.approvalDigest]: step.approvalDigest,
      [LEASH.toolStart]: count(data.start),
      [LEASH.idempotencyKey]: text(data.idempotencyKey),
      [LEASH.firstSeq]: record.seq,
    }),
  });
  if (effect !== undefined) step.effect = effect;
  track.tool = { span: opened.span, context: opened.context, step: step.index, last: record };
}

/** Ends the tool span at `tool_ended`, or (with no record) at its last record, as incomplete. */
export function endTool(track: RunTrack, tool: ToolSpan, record: AuditRecord | undefined): void {
  track.tool = undefined;
  const ending = record ?? tool.last;
  const data = record === undefined ? {} : dataOf(record);
  const outcome = text(data.outcome);
  const error = objectOf(data.error);
  endSpan(tool, {
    end: ending.at,
    attributes: {
      ...defined({ [LEASH.outcome]: outcome, [LEASH.incomplete]: record === undefined || undefined }),
      ...endedBy(ending),
    },
    error:
      outcome !== undefined && ERROR_OUTCOMES.has(outcome)
        ? { type: text(error.code) ?? outcome, message: text(error.message) }
        : undefined,
  });
}

/** Ends a step span at its last record, with its outcome, and status ERROR for a failure or refusal. */
export function endStep(track: RunTrack, step: StepSpan, incomplete = false): void {
  track.step = undefined;
  if (track.tool !== undefined) endTool(track, track.tool, undefined);
  const paused = step.last.event === "run_paused";
  if (paused) track.paused = step;
  endSpan(step, {
    end: step.last.at,
    attributes: {
      ...defined({
        [LEASH.outcome]: step.outcome ?? (paused ? "awaiting_approval" : undefined),
        [LEASH.paused]: paused || undefined,
        [LEASH.effect]: step.effect,
        [LEASH.approvalDigest]: step.approvalDigest,
        [LEASH.incomplete]: incomplete || undefined,
      }),
      ...endedBy(step.last),
    },
    error:
      step.outcome !== undefined && ERROR_OUTCOMES.has(step.outcome)
        ? { type: step.outcome, message: step.message }
        : undefined,
  });
}
