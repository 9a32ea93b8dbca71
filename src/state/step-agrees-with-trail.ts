import type { ActDecision } from "../decisions/decision.js";
import { callArgs } from "./call-args.js";
import { digestOfJson } from "../json/index.js";
import type { Step } from "./run-state.js";
import type { Fact, Fields, TrailFacts } from "./trail-facts.js";
import { sameJson, shown } from "./trail-facts.js";

/** Where the check of one step reports what it finds. */
export interface StepCheckContext {
  facts: TrailFacts;
  /** Names a disagreement of the state with the records. */
  mismatch: (step: number | undefined, field: string, message: string) => void;
  /** Names a part of the state that no record carries, so that it was not checked. */
  unchecked: (what: string) => void;
  /** The step the state's pending request is for, if it awaits approval. */
  pendingStep: number | undefined;
}

// The codes a denied step may carry for each outcome: `step_denied` records the outcome and the
// message, not the code, so the code is checked only to be one the gates give for that outcome.
const DENIED_CODES: Record<string, readonly string[]> = {
  unknown_tool: ["unknown_tool"],
  invalid_arguments: ["invalid_arguments", "arguments_too_deep", "arguments_too_large", "invalid_json"],
  effect_denied: ["effect_denied"],
  scope_denied: ["scope_denied"],
  blocked: ["blocked"],
  approval_denied: ["approval_denied"],
  approval_stale: ["approval_stale"],
};

function last(facts: readonly Fact[], event: string): Fact | undefined {
  return facts.findLast((fact) => fact.event === event);
}

/** The error a record carries, as `{ code, message }`, when it carries one. */
function errorOf(data: Fields): unknown {
  return data.error === undefined ? undefined : data.error;
}

function sameError(step: Step, expected: unknown): boolean {
  const actual = step.error === undefined ? undefined : { code: step.error.code, message: step.error.message };
  return sameJson(actual, expected);
}

/**
 * Checks one step of a saved state against its run's records: the decision against `decision_made`,
 * each start against `tool_started`, the outcome, error and result digest against the record that
 * ended the step (`step_denied`, `tool_ended`, a guard's `guard_blocked`, `answer_rejected` or the
 * run's `run_ended`), and the answer it keeps against `approval_answered`.
 */
export function checkStep(step: Step, index: number, context: StepCheckContext): void {
  const { facts, mismatch } = context;
  const own = facts.byStep.get(index) ?? [];
  if (typeof step !== "object" || step === null) {
    mismatch(index, "step", `Step ${index} of the saved state is not a step.`);
    return;
  }
  if (step.index !== index)
    mismatch(index, "index", `Step ${index} of the saved state says it is step ${shown(step.index)}.`);
  const made = own.find((fact) => fact.event === "decision_made");
  if (made === undefined) {
    mismatch(
      index,
      "decision",
      `Step ${index} is in the saved state, but no decision_made record of it is in the trail.`,
    );
    return;
  }
  if (!sameJson(step.decision, made.data.decision)) {
    mismatch(
      index,
      decisionField(step, made.data.decision),
      `Step ${index}'s decision is ${shown(step.decision)} in the saved state, but ${shown(made.data.decision)} in the trail (seq ${made.seq}).`,
    );
  }
  if (step.decision?.type === "finish") checkFinishStep(step, index, own, context);
  else checkActStep(step, index, own, context);
}

/** Which part of a decision differs, for the problem's `field`. */
function decisionField(step: Step, recorded: unknown): string {
  const decision = step.decision as unknown as Fields | undefined;
  const other = typeof recorded === "object" && recorded !== null ? (recorded as Fields) : {};
  if (decision === undefined || decision.type !== other.type) return "decision";
  for (const key of ["tool", "args", "answer", "reason", "usage"]) {
    if (!sameJson(decision[key], other[key])) return key === "args" ? "arguments" : key;
  }
  return "decision";
}

function checkFinishStep(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const { facts, mismatch } = context;
  const ended = facts.ended?.data;
  const rejected = last(own, "answer_rejected");
  const say = (message: string): void =>
    mismatch(index, "outcome", `Step ${index} is ${shown(step.outcome)} in the saved state, but ${message}.`);
  // Any other outcome is one an answer never gets: the default names it.
  switch (step.outcome as string | null) {
    case "finished":
      if (ended?.status !== "completed") say("the trail holds no completed end of the run");
      if (step.result !== null)
        mismatch(index, "result", `Step ${index} finished, yet the saved state gives it a result.`);
      return;
    case "answer_rejected":
      if (rejected !== undefined) {
        if (!sameError(step, { code: "answer_rejected", message: rejected.data.why }))
          mismatch(
            index,
            "error",
            `Step ${index}'s refusal is ${shown(step.error)} in the saved state, but the trail says why: ${shown(rejected.data.why)}.`,
          );
      } else if (ended?.status === "failed") {
        if (!sameError(step, ended.failure))
          mismatch(
            index,
            "error",
            `Step ${index}'s refusal is ${shown(step.error)} in the saved state, but the run failed with ${shown(ended.failure)}.`,
          );
      } else say("the trail records no refusal of it");
      return;
    case "interrupted": {
      const recovered = facts.all.some(
        (fact) => fact.event === "run_resumed" && fact.data.reason === "recovery" && fact.data.step === index,
      );
      if (!recovered) say("the trail records no recovery of the run at it");
      else context.unchecked(`step ${index}'s error (an answer a crash left unjudged is not recorded)`);
      return;
    }
    case null:
      if (rejected !== undefined || ended !== undefined) say("the trail says it was judged");
      return;
    default:
      say("an answer can only be finished, refused or interrupted");
  }
}

function checkActStep(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const { facts, mismatch } = context;
  const decision = step.decision as ActDecision;
  const started = own.filter((fact) => fact.event === "tool_started");
  for (const start of started) {
    if (start.data.tool !== decision.tool)
      mismatch(
        index,
        "tool",
        `Step ${index} calls ${shown(decision.tool)} in the saved state, but the trail started ${shown(start.data.tool)} (seq ${start.seq}).`,
      );
    if (!sameJson(start.data.args, callArgs(step)))
      mismatch(
        index,
        "arguments",
        `Step ${index}'s arguments are ${shown(callArgs(step))} in the saved state, but the trail started the call with ${shown(start.data.args)} (seq ${start.seq}).`,
      );
  }
  checkEdit(step, index, own, context);
  const lastStart = started.at(-1);
  if (
    step.idempotencyKey !== undefined &&
    lastStart !== undefined &&
    step.idempotencyKey !== lastStart.data.idempotencyKey
  )
    mismatch(
      index,
      "idempotencyKey",
      `Step ${index}'s idempotency key differs from the one its call started with (seq ${lastStart.seq}).`,
    );
  const starts = step.starts ?? 0;
  if (starts > started.length || starts < started.length - 1)
    mismatch(
      index,
      "starts",
      `Step ${index} started ${starts} times in the saved state, but ${started.length} times in the trail.`,
    );
  checkActOutcome(step, index, own, context);
  checkApproval(step, index, own, context);
  void facts;
}

function checkActOutcome(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const { facts, mismatch } = context;
  const ended = facts.ended?.data;
  const denied = last(own, "step_denied");
  const toolEnded = last(own, "tool_ended");
  const outcome = step.outcome;
  const wrong = (expected: string, seq?: number): void =>
    mismatch(
      index,
      "outcome",
      `Step ${index} is ${shown(outcome)} in the saved state, but ${expected}${seq === undefined ? "" : ` (seq ${seq})`}.`,
    );
  const resultMustBeNull = (): void => {
    if (step.result !== null && step.result !== undefined)
      mismatch(
        index,
        "result",
        `Step ${index} gave no result the trail knows of, yet the saved state holds ${shown(step.result)}.`,
      );
  };
  if (denied !== undefined && (toolEnded === undefined || denied.seq > toolEnded.seq)) {
    if (outcome !== denied.data.outcome) wrong(`the trail denied it as ${shown(denied.data.outcome)}`, denied.seq);
    if (step.error?.message !== denied.data.message)
      mismatch(
        index,
        "error",
        `Step ${index}'s error is ${shown(step.error?.message)} in the saved state, but the trail says ${shown(denied.data.message)} (seq ${denied.seq}).`,
      );
    const codes = DENIED_CODES[String(denied.data.outcome)];
    if (codes !== undefined && !codes.includes(String(step.error?.code)))
      mismatch(
        index,
        "error",
        `Step ${index}'s error code ${shown(step.error?.code)} is not one a ${shown(denied.data.outcome)} step gets.`,
      );
    else context.unchecked(`step ${index}'s error code (step_denied records carry the outcome and the message)`);
    resultMustBeNull();
    return;
  }
  if (toolEnded !== undefined) {
    const recorded = toolEnded.data.outcome;
    if (recorded === "executed" && outcome === "withheld") {
      checkWithheld(step, index, own, context);
      resultMustBeNull();
      return;
    }
    const keptBack = own.find((fact) => fact.event === "guard_blocked" && fact.data.point === "afterTool");
    if (recorded === "executed" && keptBack !== undefined) {
      // The call ran, and a guard kept its result back: the trail says withheld, whatever the row says.
      wrong(`a guard kept its result back in the trail`, keptBack.seq);
      resultMustBeNull();
      return;
    }
    if (outcome !== recorded) wrong(`the trail ended its call as ${shown(recorded)}`, toolEnded.seq);
    if (!sameError(step, errorOf(toolEnded.data)))
      mismatch(
        index,
        "error",
        `Step ${index}'s error is ${shown(step.error)} in the saved state, but the trail says ${shown(errorOf(toolEnded.data))} (seq ${toolEnded.seq}).`,
      );
    if (recorded === "executed") {
      let digest: string | undefined;
      try {
        digest = digestOfJson(step.result);
      } catch {
        digest = undefined;
      }
      if (digest !== toolEnded.data.resultDigest)
        mismatch(
          index,
          "result",
          `Step ${index}'s result ${shown(step.result)} in the saved state is not the result whose digest the trail recorded (seq ${toolEnded.seq}).`,
        );
    } else resultMustBeNull();
    return;
  }
  resultMustBeNull();
  if (outcome === null || outcome === undefined) {
    if (ended !== undefined) wrong("the run has ended in the trail, which would have closed it");
    return;
  }
  // Two ends write no record of the step: a limit or a cancel that kept it from starting, and a
  // guard that threw before it; the run's end says which.
  if (outcome === "stopped" && ended?.status === "stopped" && step.error?.code === ended.stopReason) {
    context.unchecked(`step ${index}'s error message (a step a limit kept from starting has no record of its own)`);
    return;
  }
  if (outcome === "blocked" && ended?.status === "failed" && sameError(step, ended.failure)) return;
  wrong("the trail records no end of it");
}

/** A call that ran and whose result was kept back: by a guard's block, a cancel, or a guard that threw. */
function checkWithheld(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const ended = context.facts.ended?.data;
  const blocked = own.findLast((fact) => fact.event === "guard_blocked" && fact.data.point === "afterTool");
  if (blocked !== undefined) {
    if (!sameError(step, { code: "withheld", message: `${String(blocked.data.guard)}: ${String(blocked.data.why)}` }))
      context.mismatch(
        index,
        "error",
        `Step ${index}'s error is ${shown(step.error)} in the saved state, but the trail says ${shown(blocked.data.guard)} kept the result back: ${shown(blocked.data.why)} (seq ${blocked.seq}).`,
      );
    return;
  }
  if (ended?.status === "failed" && sameError(step, ended.failure)) return;
  if (ended?.status === "stopped" && ended.stopReason === "cancelled" && step.error?.code === "cancelled") {
    context.unchecked(`step ${index}'s error message (a result a cancel kept back has no record of its own)`);
    return;
  }
  context.mismatch(
    index,
    "outcome",
    `Step ${index} is withheld in the saved state, but the trail records no guard that kept its result back.`,
  );
}

/**
 * A step's edit against its `arguments_edited` record: an edited step has one, from the proposed
 * arguments to the edited ones by its approver, and keeps the approval that carried the edit; a
 * step with no edit has none.
 */
function checkEdit(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const edits = own.filter((fact) => fact.event === "arguments_edited");
  const { edited } = step;
  const decision = step.decision as ActDecision;
  if (edited === undefined) {
    const first = edits[0];
    if (first !== undefined)
      context.mismatch(
        index,
        "edited",
        `Step ${index} has no edit in the saved state, but the trail records one by ${shown(first.data.by)} (seq ${first.seq}).`,
      );
    return;
  }
  const recorded = edits.find(
    (fact) =>
      sameJson(fact.data.to, edited.args) && fact.data.by === edited.by && sameJson(fact.data.from, decision.args),
  );
  if (recorded === undefined || edits.length !== 1)
    context.mismatch(
      index,
      "edited",
      `Step ${index}'s edit (to ${shown(edited.args)} by ${shown(edited.by)}) is not the one edit the trail records for it.`,
    );
  if (!sameJson(step.approval?.args, edited.args) || step.approval?.approver !== edited.by)
    context.mismatch(
      index,
      "edited",
      `Step ${index}'s edit is not the edit of the answer it keeps: the approval that approved it carries other arguments.`,
    );
}

/** The answer a step keeps must be one the trail recorded for it, and a decided step must keep one. */
function checkApproval(step: Step, index: number, own: readonly Fact[], context: StepCheckContext): void {
  const answered = own.filter((fact) => fact.event === "approval_answered" && fact.data.accepted !== false);
  const approval = step.approval;
  if (approval === undefined) {
    const decided = own.some(
      (fact) =>
        (fact.event === "run_resumed" && fact.data.reason === "approval") ||
        (fact.event === "approval_answered" && fact.data.accepted === true && fact.data.recorded !== true),
    );
    if (decided)
      context.mismatch(
        index,
        "approval",
        `Step ${index} keeps no answer in the saved state, but the trail records the answer that decided it.`,
      );
    return;
  }
  const found = answered.some(
    (fact) =>
      fact.data.digest === approval.digest &&
      fact.data.approver === approval.approver &&
      fact.data.granted === approval.granted &&
      fact.data.note === approval.note &&
      sameJson(fact.data.args, approval.args),
  );
  if (!found)
    context.mismatch(
      index,
      "approval",
      `Step ${index}'s answer (${approval.granted ? "approved" : "denied"} by ${shown(approval.approver)}${approval.note === undefined ? "" : `, note ${shown(approval.note)}`}) is not an answer the trail recorded for it.`,
    );
}
