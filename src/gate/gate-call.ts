import type { CallApprovalRequest } from "../approvals/approval.js";
import type { ActDecision } from "../decisions/decision.js";
import { isLeashError, StateError } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { canonicalJson } from "../json/index.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { RunState, Step } from "../state/run-state.js";
import type { ActiveRun } from "../run/active-run.js";
import { approvalGate } from "../run/approval-gate.js";
import { decideAnswers } from "../run/decide-answers.js";
import { passGates } from "../run/gates.js";
import { plannerLimitReached, runLimitReached } from "../run/limit-checks.js";
import { actStep, endRun } from "../run/run-loop.js";
import { recoveryStage } from "../run/take-over.js";
import { recordWaiting, waitingRequest } from "../run/waiting-requests.js";
import type { GateCallAnswer } from "./gate-answer.js";
import { grantsFor } from "../run/standing-grant.js";
import { endedAnswer, settledAnswer } from "./gate-answer.js";

/** One call as the app's loop gives it, checked. */
export interface GateCallInput {
  callId: string;
  tool: string;
  args: Json;
  reason?: string;
}

/** What one attempt of an operation gave: its answer, or "wait" while another process runs the call. */
export type Attempt<T> = { type: "done"; value: T } | { type: "wait" };

const done = <T>(value: T): Attempt<T> => ({ type: "done", value });

/** The step of a session that took this call id, if one did. */
export function stepOfCall(state: RunState, callId: string): Step | undefined {
  return state.steps.find((step) => step.decision.type === "act" && step.decision.callId === callId);
}

/**
 * Refuses a call id given again with another tool or other arguments (canonical JSON compared), so
 * that an id never names two calls: `call_mismatch`, and nothing changes.
 */
export function assertSameCall(step: Step, input: GateCallInput): void {
  const decision = step.decision as ActDecision;
  if (decision.tool === input.tool && canonicalJson(decision.args) === canonicalJson(input.args)) return;
  const what = decision.tool === input.tool ? "other arguments" : `tool \`${input.tool}\``;
  throw new StateError(
    "call_mismatch",
    `Call \`${input.callId}\` was made as \`${decision.tool}\` (step ${step.index}); it is given again with ${what}. A call id names one call.`,
    { details: { callId: input.callId, step: step.index, tool: decision.tool } },
  );
}

/** What the step of a call answers once the step has been taken (or the run ended by it). */
function answerOf(run: ActiveRun, step: Step, ended: RunState | undefined): GateCallAnswer {
  // The call ended the session (a limit, a guard that threw): its answer is the session's end.
  if (ended !== undefined) return endedAnswer(ended);
  const request = waitingRequest(run.state, step);
  if (request !== undefined) return { status: "awaiting_approval", request: structuredClone(request) };
  return settledAnswer(run.state, step);
}

/**
 * Takes a step through every gate, the approval and the call (the loop's own `actStep`), then makes
 * whatever is not durable yet durable (a denied step's record), and says what the call answers.
 */
async function take(run: ActiveRun, step: Step, options: Parameters<typeof actStep>[2]): Promise<GateCallAnswer> {
  const ended = await actStep(run, step, options);
  if (ended === undefined && run.hasUnwritten) await run.checkpoint();
  return answerOf(run, step, ended);
}

/** A call that waits for a person: taken now when a recorded answer decides it, else still waiting. */
async function answerWaiting(run: ActiveRun, step: Step, request: CallApprovalRequest): Promise<GateCallAnswer> {
  const { state } = run;
  let decided: ReturnType<typeof decideAnswers>;
  try {
    // Every answer of a session is in the trail already (the store holds it): none is audited again.
    decided = decideAnswers(run.core, state, request, [], new Set());
  } catch (error) {
    // Answers only from people the policy refuses decide nothing: the call still waits.
    if (isLeashError(error, "approver_not_allowed")) return { status: "awaiting_approval", request };
    throw error;
  }
  // Standing grants given since the call was asked (as many of distinct givers as its quorum) take it
  // on when nobody has answered it yet: the step goes through every gate again, where the uses are
  // taken as at any call (lost to another process meanwhile, the call waits again).
  const quorum = request.quorum ?? 1;
  if (decided === null && (await grantsFor(run, request, quorum)).length >= quorum)
    return take(run, step, { restart: false });
  // Short of a quorum, the call still waits: its answers are recorded in the trail already.
  if (decided === null || decided.type === "short")
    return { status: "awaiting_approval", request: structuredClone(request) };
  // The answers to this request leave the state with the checkpoint that takes the call on.
  state.answers = state.answers.filter((answer) => answer.digest !== request.digest);
  // The step keeps the answer that decided it, as a resume's claim keeps it: an edited call a gate
  // then refuses still shows which approval carried the edit.
  step.approval = decided.answer.toJSON();
  return take(run, step, { restart: false, answer: decided.answer.toJSON() });
}

/**
 * A call found in flight: started, and neither ended nor withdrawn. When this attempt lost a save
 * to another process, that process is running it: wait for it. Otherwise the process that started
 * it is gone (the app makes sure of that, as for `agent.resume`): recovery's own policy decides, an
 * idempotent call starting again with the same idempotency key, any other one `interrupted`.
 */
async function recoverCall(run: ActiveRun, step: Step, raced: boolean): Promise<Attempt<GateCallAnswer>> {
  if (raced) return { type: "wait" };
  run.record("run_resumed", { reason: "recovery", step: step.index });
  const next = recoveryStage(run, step, false);
  if (next.type === "act") return done(await take(run, step, { restart: next.start === "restart" }));
  await run.checkpoint();
  return done(answerOf(run, step, undefined));
}

/**
 * One attempt of `session.call` on the session's run as just loaded: the recorded answer of a call
 * id seen before (after the call's answer recorded since, if it waited), or a new step through every
 * gate. A save lost to another process throws `stale_state`, for the caller to try again.
 */
export async function callAttempt(
  run: ActiveRun,
  input: GateCallInput,
  raced: boolean,
): Promise<Attempt<GateCallAnswer>> {
  const { state } = run;
  const existing = stepOfCall(state, input.callId);
  if (existing !== undefined) {
    assertSameCall(existing, input);
    if (ENDED_STATUSES.has(state.status)) return done(settledAnswer(state, existing));
    if (existing.outcome !== null) {
      // A guard's afterTool that threw ends the session failed; a crash may have come in between.
      if (existing.outcome === "withheld" && existing.error?.code === "guard_failed") {
        const ended = await endRun(run, {
          status: "failed",
          failure: { code: "guard_failed", message: existing.error.message },
        });
        return done(endedAnswer(ended));
      }
      return done(settledAnswer(state, existing));
    }
    const request = waitingRequest(state, existing);
    if (request !== undefined) return done(await answerWaiting(run, existing, request));
    return recoverCall(run, existing, raced);
  }
  if (ENDED_STATUSES.has(state.status)) return done(endedAnswer(state));
  const step = newStep(run, input);
  if (step === undefined) {
    const reached = plannerLimitReached(run) ?? "max_steps";
    return done(endedAnswer(await endRun(run, { status: "stopped", reason: reached })));
  }
  return done(await take(run, step, { restart: false }));
}

/** A new step for the call, with its `decision_made` record; undefined when a limit ends the session first. */
function newStep(run: ActiveRun, input: GateCallInput): Step | undefined {
  const { state } = run;
  if (plannerLimitReached(run) !== undefined) return undefined;
  const decision: ActDecision = { type: "act", tool: input.tool, args: input.args, callId: input.callId };
  if (input.reason !== undefined) decision.reason = input.reason;
  const step: Step = { index: state.steps.length, decision, outcome: null, result: null };
  state.steps.push(step);
  run.record("decision_made", { step: step.index, decision: decision as unknown as Json });
  return step;
}

/** Whether a step a call took was asked of a person (it waits, was answered, or was refused by an answer). */
function wasAsked(state: RunState, step: Step): boolean {
  return (
    waitingRequest(state, step) !== undefined ||
    step.approval !== undefined ||
    step.outcome === "approval_denied" ||
    step.outcome === "approval_stale"
  );
}

/**
 * One attempt of `session.needsApproval`: true when a person must answer the call (its request is
 * then recorded, as `call` records it); false, recording nothing, when it needs no person (the
 * gate's approver callable answered it, or a standing grant would: its use is taken by `call`) or a gate before approval refuses it. A call asked of a person before answers true, even once answered, so
 * that a framework that asks again hands the call to `call`, which decides.
 */
export async function needsApprovalAttempt(run: ActiveRun, input: GateCallInput): Promise<boolean> {
  const { state } = run;
  const existing = stepOfCall(state, input.callId);
  if (existing !== undefined) {
    assertSameCall(existing, input);
    return wasAsked(state, existing);
  }
  const { policy } = run.core;
  if (ENDED_STATUSES.has(state.status)) return false;
  const step = newStep(run, input);
  if (step === undefined) return false;
  // The run is dropped unsaved when the answer is false, so whatever a gate recorded is never written.
  const gates = await passGates(run, step, false);
  if (gates.type !== "pass" || !policy.needsApproval(gates.tool.effect)) return false;
  // An approver callable is asked here, as `call` would ask it: its answer (the session keeps it for
  // the call) means no person need answer; `null`, or an answer the policy refuses, leaves the
  // request waiting for a person, recorded now with whatever the approval gate recorded of it.
  const approval = await approvalGate(run, step, gates.tool, undefined, { probe: true });
  if (approval.type !== "pause" || runLimitReached(run) !== undefined) return false;
  await recordWaiting(run, approval.request, approval.history);
  return true;
}
