import type { Tracer } from "@opentelemetry/api";
import { context as contexts } from "@opentelemetry/api";
import type { AuditRecord } from "../audit/audit-record.js";
import { count, dataOf, defined, endedBy, eventAttributes, objectOf, text } from "./record-attributes.js";
import { runEndAttributes, runStartAttributes } from "./record-attributes.js";
import type { RunTrack, StepSpan, Stretch } from "./run-track.js";
import { addEvent, annotate, endSpan, linkTo, openSpan } from "./span-kit.js";
import { GEN_AI, LEASH, OPERATION } from "./span-names.js";
import { endStep, endTool, modelSpan, openTool } from "./step-spans.js";

/** What the mapping needs besides records. */
export interface SpanMapperOptions {
  tracer: Tracer;
  /** A tool's effect by name, for `leash.effect` on tool spans whose step asked no approval. */
  effectOf?: ((tool: string) => string | undefined) | undefined;
  /** The agent's name for a run first seen after its `run_started` (a resume in another process). */
  agentName?: string | undefined;
}

/** Records that never open a stretch of their own: they come after a run's end. */
const AFTER_END = new Set(["gave_up"]);

// Empty lists to loop over, so a step with nothing waiting allocates nothing.
const NONE: readonly AuditRecord[] = [];
const NONE_MODELS: RunTrack["models"] = [];

/** Runs kept once their stretch closed (paused runs, for the link from their resume). */
const MAX_IDLE_RUNS = 10_000;

/**
 * The one mapping from audit records to spans, fed by a live agent or by a stored trail. Records of
 * one run must come in seq order; records of different runs may interleave. Every start and end time
 * is a record's own `at`, so spans made after the fact are as exact as spans made live.
 */
export class SpanMapper {
  readonly #tracer: Tracer;
  readonly #effectOf: (tool: string) => string | undefined;
  readonly #runs = new Map<string, RunTrack>();
  readonly #agentName: string;

  constructor(options: SpanMapperOptions) {
    this.#tracer = options.tracer;
    this.#effectOf = options.effectOf ?? (() => undefined);
    this.#agentName = options.agentName ?? "leash";
  }

  /** Turns one record into the spans it opens, annotates or ends. */
  feed(record: AuditRecord): void {
    let track = this.#runs.get(record.run);
    if (track === undefined) {
      if (AFTER_END.has(record.event)) return;
      track = { runId: record.run, models: [], between: [], early: [], nextStep: 0, stretches: 0 };
      this.#runs.set(record.run, track);
      this.#forgetIdle();
    }
    const previousAt = track.lastAt ?? record.at;
    track.lastAt = record.at;
    if (record.event === "run_started" || record.event === "run_resumed") {
      if (track.run !== undefined) this.#closeAll(track, "interrupted");
      this.#openRun(track, record);
      return;
    }
    if (track.run === undefined) {
      if (track.stretches > 0 || AFTER_END.has(record.event)) {
        track.between.push(record);
        return;
      }
      // A run first seen mid-way (a tracer attached late): its stretch starts at this record.
      this.#openRun(track, record);
    }
    this.#inRun(track, record, previousAt);
  }

  /** Ends every span still open at its last record, marked `leash.incomplete`. */
  close(): void {
    for (const track of this.#runs.values()) if (track.run !== undefined) this.#closeAll(track, "incomplete");
    this.#runs.clear();
  }

  #inRun(track: RunTrack, record: AuditRecord, previousAt: string): void {
    const run = track.run as Stretch;
    run.last = record;
    const data = dataOf(record);
    const step = count(data.step);
    switch (record.event) {
      case "model_called":
      case "model_failed":
        if (track.tool !== undefined) modelSpan(this.#tracer, track, record, previousAt, track.tool);
        else track.models.push({ record, start: previousAt });
        return;
      case "run_ended":
        if (track.models.length > 0) this.#stepOf(track, count(data.steps) ?? 0, record, previousAt);
        // A step the end closes without an outcome of its own (a hand-back, a blocked model answer)
        // is ended by the run's end record, which says how it went.
        if (track.step !== undefined && track.step.outcome === undefined) {
          track.step.last = record;
          if (track.step.finish === true && data.status === "completed") track.step.outcome = "finished";
        }
        this.#closeAll(track, "ended");
        this.#runs.delete(track.runId);
        return;
      case "run_paused":
        if (step !== undefined) this.#stepOf(track, step, record, previousAt);
        this.#closeAll(track, "paused");
        return;
      default:
        if (step === undefined) {
          addEvent(run, record.event, record.at, eventAttributes(record));
          return;
        }
        this.#stepRecord(track, this.#stepOf(track, step, record, previousAt), record);
    }
  }

  #stepRecord(track: RunTrack, step: StepSpan, record: AuditRecord): void {
    const data = dataOf(record);
    switch (record.event) {
      case "decision_made": {
        const decision = data.decision as Record<string, unknown> | null;
        step.finish = decision?.type === "finish";
        step.tool = text(decision?.tool);
        step.callId = text(decision?.callId);
        annotate(
          step,
          defined({
            [LEASH.decision]: text(decision?.type),
            [GEN_AI.toolName]: step.tool,
            [GEN_AI.toolCallId]: step.callId,
          }),
        );
        return;
      }
      case "tool_started":
        openTool(this.#tracer, track, step, record, this.#effectOf);
        return;
      case "tool_ended":
        step.outcome = text(data.outcome);
        step.message = text(objectOf(data.error).message);
        if (track.tool !== undefined) endTool(track, track.tool, record);
        return;
      case "step_denied":
        step.outcome = text(data.outcome);
        step.message = text(data.message);
        return;
      case "answer_rejected":
        step.outcome = "answer_rejected";
        step.message = text(data.why);
        addEvent(step, record.event, record.at, eventAttributes(record));
        return;
      case "guard_blocked":
        step.outcome = data.point === "afterTool" ? "withheld" : "blocked";
        step.message = `${text(data.guard) ?? "a guard"}: ${text(data.why) ?? ""}`;
        addEvent(step, record.event, record.at, eventAttributes(record));
        return;
      case "approval_requested":
      case "approval_answered":
        step.approvalDigest = text(data.digest) ?? step.approvalDigest;
        step.effect = text(data.effect) ?? step.effect;
        addEvent(step, record.event, record.at, eventAttributes(record));
        return;
      default:
        addEvent(step, record.event, record.at, eventAttributes(record));
    }
  }

  #openRun(track: RunTrack, record: AuditRecord): void {
    const data = dataOf(record);
    track.agent = text(data.agent) ?? track.agent ?? this.#agentName;
    const opened = openSpan(this.#tracer, {
      name: `${OPERATION.agent} ${track.agent}`,
      kind: "internal",
      start: record.at,
      parent: contexts.active(),
      attributes: {
        [GEN_AI.operation]: OPERATION.agent,
        [GEN_AI.agentName]: track.agent,
        [GEN_AI.conversationId]: track.runId,
        [LEASH.runId]: track.runId,
        [LEASH.firstSeq]: record.seq,
        ...runStartAttributes(record),
      },
      ...(track.firstLink !== undefined ? { links: [track.firstLink] } : {}),
    });
    track.run = { span: opened.span, context: opened.context, last: record };
    track.stretches += 1;
    track.firstLink ??= linkTo(opened);
    // What was recorded while the run waited goes to the step it names (an answer to its approval),
    // when that step opens in this stretch; anything else is an event of the stretch.
    for (const earlier of track.between.length > 0 ? track.between.splice(0) : NONE) {
      if (count(dataOf(earlier).step) !== undefined) track.early.push(earlier);
      else addEvent(opened, earlier.event, earlier.at, eventAttributes(earlier));
    }
  }

  /** The open span of step `index`, opened (with the model calls that led to it) if it is not. */
  #stepOf(track: RunTrack, index: number, record: AuditRecord, previousAt: string): StepSpan {
    const open = track.step;
    if (open !== undefined && open.index === index) {
      open.last = record;
      return open;
    }
    if (open !== undefined) endStep(track, open);
    const run = track.run as Stretch;
    const start = track.models[0]?.start ?? previousAt;
    const opened = openSpan(this.#tracer, {
      name: `step ${index}`,
      kind: "internal",
      start,
      parent: run.context,
      attributes: {
        [LEASH.runId]: track.runId,
        [LEASH.step]: index,
        [LEASH.firstSeq]: track.models[0]?.record.seq ?? record.seq,
      },
    });
    const step: StepSpan = { span: opened.span, context: opened.context, index, first: record, last: record };
    const carried = track.paused?.index === index ? track.paused : undefined;
    if (carried !== undefined) {
      step.finish = carried.finish;
      step.tool = carried.tool;
      step.callId = carried.callId;
      step.effect = carried.effect;
      step.approvalDigest = carried.approvalDigest;
      annotate(step, defined({ [GEN_AI.toolName]: step.tool, [GEN_AI.toolCallId]: step.callId }));
    }
    track.paused = undefined;
    track.step = step;
    for (const earlier of track.early.length > 0 ? track.early.splice(0) : NONE) {
      if (count(dataOf(earlier).step) === index) this.#stepRecord(track, step, earlier);
    }
    track.nextStep = Math.max(track.nextStep, index + 1);
    for (const model of track.models.length > 0 ? track.models.splice(0) : NONE_MODELS)
      modelSpan(this.#tracer, track, model.record, model.start, step);
    return step;
  }

  /** Closes the stretch: its tool, step and run spans; pending model calls go into a step of their own. */
  #closeAll(track: RunTrack, how: "ended" | "paused" | "interrupted" | "incomplete"): void {
    const run = track.run as Stretch;
    if (track.models.length > 0) this.#stepOf(track, track.nextStep, run.last, run.last.at);
    if (track.step !== undefined) endStep(track, track.step, how === "interrupted" || how === "incomplete");
    track.run = undefined;
    const last = run.last;
    const ends = how === "ended" || how === "paused";
    const attributes = ends ? runEndAttributes(last) : { [LEASH.incomplete]: true, [LEASH.outcome]: how };
    const failure = objectOf(dataOf(last).failure);
    const failed = ends && text(dataOf(last).status) === "failed";
    endSpan(run, {
      end: last.at,
      attributes: { ...attributes, ...endedBy(last) },
      error: failed ? { type: text(failure.code) ?? "failed", message: text(failure.message) } : undefined,
    });
  }

  #forgetIdle(): void {
    if (this.#runs.size <= MAX_IDLE_RUNS) return;
    for (const [runId, track] of this.#runs) {
      if (track.run === undefined) {
        this.#runs.delete(runId);
        return;
      }
    }
  }
}
