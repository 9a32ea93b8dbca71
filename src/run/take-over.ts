import type { Approval, LimitApprovalRequest } from "../approvals/approval.js";
import { assertNever, isLeashError, StateError } from "../errors/index.js";
import { MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { RunState, Step } from "../state/run-state.js";
import type { AgentCore } from "./agent-core.js";
import { ActiveRun } from "./active-run.js";
import { leftoverAnswerRecords, lostApprovalRecords, unauditedAnswers } from "./audit-answers.js";
import { answerClaimRecords, auditRefused, decideAnswers } from "./decide-answers.js";
import { recordShort } from "./record-short.js";
import { checkEdits } from "./check-edits.js";
import { findResumable, headOf, readResumeOptions, skillOf } from "./resume-target.js";
import type { ResumeOptions } from "./resume-target.js";
import type { Ending } from "./run-loop.js";
import {
  applyRaise,
  applyRaisesAhead,
  decideRaise,
  raiseBudget,
  raiseClaimRecords,
  refuseUnfitAnswers,
} from "./raise-limit.js";
import { grantsFor, recordGrantAnswers } from "./standing-grant.js";
import { endedByCancel, unsavedStart, withdrawCall, withdrawUnsavedStart } from "./withdrawn-call.js";

export type { ResumeOptions } from "./resume-target.js";

/** The most starts an idempotent call gets across crashes before its step is `interrupted`. */
export const MAX_STARTS = 3;

/** What a process asks to take over a stored run for. */
export type TakeOverRequest =
  | { type: "resume"; target: unknown; options: ResumeOptions }
  | { type: "cancel"; runId: string }
  | { type: "note"; state: RunState; event: string; data: unknown };

/**
 * What the claimed run does next. `act` takes a step through every gate: `first` a call that never
 * started, `restart` an idempotent call started before a crash, `unsaved` a call whose start the
 * trail holds but the state never saved (it never ran: a call starts only once its intent is saved),
 * which runs under that start, with no second `tool_started`.
 */
export type NextStage =
  | { type: "resume_approval"; step: Step; answer: Approval }
  | { type: "act"; step: Step; start: "first" | "restart" | "unsaved" }
  | { type: "loop" }
  | { type: "end"; ending: Ending }
  | { type: "note"; event: string; data: unknown };

/**
 * Why a take-over went no further: no answer matches the pending request, the answers fall short of
 * its quorum (they are recorded, and the run stays paused), or the run has ended.
 */
export type UnchangedReason = "no_matching_answer" | "short_of_quorum" | "ended";

/** What a take-over gave: the run unchanged and why, or the claimed run and its next stage. */
export type TakeOver =
  | { type: "unchanged"; reason: UnchangedReason; state: RunState }
  | { type: "claimed"; run: ActiveRun; next: NextStage };

/**
 * Takes over a stored run: an answer to its pause, crash recovery, a cancel, or a note after its
 * end. Every refusal comes before anything is written; the claim (a compare-and-set on `revision`)
 * comes before the first record, so a process that loses a race writes nothing. Returns the run
 * unchanged and why, or the claimed run and what it does next.
 *
 * @example
 * const taken = await takeOver(core, { type: "resume", target: runId, options: {} });
 * if (taken.type === "claimed") return continueRun(taken.run, taken.next);
 */
export function takeOver(core: AgentCore, request: TakeOverRequest): Promise<TakeOver> {
  switch (request.type) {
    case "resume":
      return resume(core, request.target, request.options);
    case "cancel":
      return cancel(core, request.runId);
    case "note": {
      const { state } = request;
      const run = new ActiveRun(core, state, {
        head: state.auditHead,
        stored: core.store !== undefined,
        skill: undefined,
      });
      return Promise.resolve({
        type: "claimed",
        run,
        next: { type: "note", event: request.event, data: request.data },
      });
    }
    default:
      return assertNever(request, "take-over request");
  }
}

/**
 * Lets the claimed run go the moment the caller's hold on it is lost (a worker's lease): its signal
 * aborts and nothing more is written, and whatever writes next is told `stale_state`.
 */
function holdWhile(run: ActiveRun, lease: AbortSignal | undefined): void {
  if (lease === undefined) return;
  const { runId } = run.state;
  const lost = (): void =>
    run.letGo(
      new StateError("stale_state", `The hold on run \`${runId}\` was lost; this process writes nothing more for it.`, {
        details: { runId },
      }),
    );
  if (lease.aborted) {
    lost();
    return;
  }
  lease.addEventListener("abort", lost, { once: true });
  run.whenLetGo(() => lease.removeEventListener("abort", lost));
}

/** Refuses to claim for a caller that no longer holds the run (a lease already lost). */
function refuseLost(lease: AbortSignal | undefined, runId: string): void {
  if (lease?.aborted !== true) return;
  throw new StateError("stale_state", `The hold on run \`${runId}\` was lost before the resume could claim it.`, {
    details: { runId },
  });
}

async function resume(
  core: AgentCore,
  target: unknown,
  options: ResumeOptions,
  grantsRecorded = false,
): Promise<TakeOver> {
  const { approvals, lease } = readResumeOptions(options);

  const { state, trail, later, head } = await findResumable(core, target, approvals.length > 0);
  const { runId } = state;
  const skill = skillOf(core, state.skill);
  const stored = core.store !== undefined;

  if (state.status === "awaiting_approval") {
    const pending = state.pending;
    if (pending === undefined)
      throw new StateError("invalid_state", `Run \`${runId}\` awaits approval but has no pending request.`);
    refuseUnfitAnswers(state, pending, approvals);
    // An edit the tool's schema refuses is refused here, while nothing has been recorded.
    checkEdits(skill?.tools ?? core.tools, pending, approvals);
    // Under a quorum above one, standing grants given since the pause count as that many answers:
    // recorded as answers first (each with its use), then decided with the rest, on the run as it
    // is now. Only for a run named by its id: a copy given to resume would be out of date after.
    if (
      !grantsRecorded &&
      typeof target === "string" &&
      pending.kind === "call" &&
      (pending.quorum ?? 1) > 1 &&
      lease?.aborted !== true &&
      (await recordGrantAnswers(core, runId, skill?.tools ?? core.tools)) !== undefined
    )
      return resume(core, target, options, true);
    const unaudited = new Set(unauditedAnswers(state, trail).map((item) => item.index));
    let decided: ReturnType<typeof decideAnswers>;
    try {
      decided = decideAnswers(core, state, pending, approvals, unaudited);
    } catch (error) {
      // Refused: the recorded answers still reach the trail, so none waits unaudited on a later claim.
      if (isLeashError(error, "approver_not_allowed")) await auditRefused(core, state, trail, head, skill);
      throw error;
    }
    const step = pending.kind === "call" ? state.steps[pending.step] : undefined;
    if (decided === null) {
      // No answer, given or recorded: a standing grant given since the pause may approve the call.
      // Only when one matches now is the run claimed, and the step goes through every gate again,
      // where the use is taken as at any call (lost to another process, the step pauses again).
      // A limit request takes no standing grant; under a quorum above one they were recorded as answers above.
      const run = new ActiveRun(core, state, { head, stored, skill });
      const none = approvals.length > 0 || state.answers.length > 0 || step === undefined;
      if (none || pending.kind !== "call" || (pending.quorum ?? 1) > 1 || (await grantsFor(run, pending)).length === 0)
        return { type: "unchanged", reason: "no_matching_answer", state };
      refuseLost(lease, runId);
      state.status = "running";
      state.pending = undefined;
      state.pendingHistory = undefined;
      await run.claim([["run_resumed", { reason: "grant", step: pending.step }]]);
      holdWhile(run, lease);
      return { type: "claimed", run, next: { type: "act", step, start: "first" } };
    }
    if (decided.type === "short") {
      const run = new ActiveRun(core, state, { head, stored, skill });
      refuseLost(lease, runId);
      return { type: "unchanged", reason: "short_of_quorum", state: await recordShort(run, pending, decided) };
    }
    if (pending.kind === "limit") {
      const raise = decideRaise(decided);
      const records = raiseClaimRecords(state, pending, raise.decided, raise.to);
      refuseLost(lease, runId);
      const raisedBy = raise.decided.answer;
      // Where the raise came from, when `store.answer` recorded it (the CLI, the inbox): the budget's record says so too.
      const origin = state.answers.find(
        (answer) =>
          answer.digest === pending.digest && answer.approver === raisedBy.approver && answer.raiseTo === raise.to,
      )?.origin;
      // A shared budget's raise changes the budget in the store before the claim that records it: a
      // crash in between leaves the budget raised and the run paused with its answer, and the next
      // resume raises again (already done: nothing changed or recorded) and claims.
      if (raise.to !== undefined) {
        await raiseBudget(core, state, pending, raise.to, { approver: raisedBy.approver, note: raisedBy.note, origin });
        refuseLost(lease, runId);
      }
      const run = new ActiveRun(core, state, { head, stored, skill });
      state.status = "running";
      // The raise is saved with the records that say it (with a separate sink, in the save after them).
      await run.claim(records, () => {
        state.answers = [];
        if (raise.to !== undefined) applyRaise(state, pending, raise.to);
      });
      holdWhile(run, lease);
      return { type: "claimed", run, next: afterRaise(state, pending, raise.to) };
    }
    if (step === undefined) throw new StateError("invalid_state", `Run \`${runId}\` has no step ${pending.step}.`);
    const records = answerClaimRecords(pending, decided);
    // Checked before the claim: an answer that cannot be recorded (a note that is not well-formed
    // text, say) is refused with `not_json` while nothing has been written.
    for (const [event, data] of records)
      toJson(data, `the data of audit event \`${event}\``, { maxDepth: MAX_RECORD_DEPTH });
    refuseLost(lease, runId);
    const run = new ActiveRun(core, state, { head, stored, skill });
    state.status = "running";
    // The answer is saved with the claim: if this process dies between the claim and the call,
    // crash recovery runs the approved call once instead of asking the person again.
    step.approval = decided.answer.toJSON();
    // Recorded answers leave the state with the checkpoint that follows their records, so a crash in
    // between leaves each one either kept in the state or in the trail.
    await run.claim(records, () => {
      state.answers = [];
    });
    holdWhile(run, lease);
    return { type: "claimed", run, next: { type: "resume_approval", step, answer: decided.answer } };
  }

  // A run saved as `running`: crash recovery.
  const run = new ActiveRun(core, state, { head, stored, skill });
  const inFlight = state.steps.findLast((step) => step.outcome === null);
  // A trail ahead of the state may say the saved call never started (a cancel landed while its
  // intent was written: taken back as it was then), or hold a start the state never saved.
  const withdrawn = withdrawCall(run, later);
  const unsaved = withdrawn === undefined ? unsavedStart(run, later) : undefined;
  const leftover = leftoverAnswerRecords(core, state, trail);
  applyRaisesAhead(state, later);
  refuseLost(lease, runId);
  await run.claim(
    [
      ["run_resumed", { reason: "recovery", step: inFlight?.index ?? null }],
      ...leftover,
      ...lostApprovalRecords(state, trail, leftover),
    ],
    () => {
      state.answers = [];
    },
  );
  holdWhile(run, lease);
  return { type: "claimed", run, next: recoveryStage(run, inFlight, unsaved !== undefined) };
}

/**
 * Where a run paused on a limit goes on: denied, it ends `stopped` with that limit's reason (a step
 * the limit kept from starting is closed as stopped); raised, at the step the limit kept from
 * starting, through every gate again, or at the planner.
 */
function afterRaise(state: RunState, pending: LimitApprovalRequest, to: number | undefined): NextStage {
  const step = state.steps[pending.step];
  if (to === undefined) return { type: "end", ending: { status: "stopped", reason: pending.limit } };
  return step !== undefined && step.outcome === null ? { type: "act", step, start: "first" } : { type: "loop" };
}

/**
 * The recovery policy, once the crashed run is claimed: a call the trail says never started ends
 * the run as it did then (`stopped`); a call whose start was never saved runs under that start if
 * it is idempotent and is withdrawn (`stopped`, said in its `tool_ended`) if not; an idempotent call
 * in flight starts again (at most {@link MAX_STARTS} starts in all); any other call in flight is
 * `interrupted` (whether it took effect is unknown, so it is never repeated blindly); a call saved
 * before it started starts now; an answer saved before it was judged is `interrupted`.
 */
export function recoveryStage(run: ActiveRun, step: Step | undefined, unsaved: boolean): NextStage {
  if (step === undefined) return { type: "loop" };
  if (step.outcome === "stopped") {
    const reason = step.error?.code === "max_duration" ? "max_duration" : "cancelled";
    return { type: "end", ending: { status: "stopped", reason } };
  }
  const { decision } = step;
  if (decision.type !== "act") {
    step.outcome = "interrupted";
    step.error = { code: "interrupted", message: "The process stopped before this answer was judged." };
    return { type: "loop" };
  }
  const tool = run.tools.get(decision.tool);
  const starts = step.starts ?? 0;
  if (unsaved) {
    if (tool?.idempotent === true) return { type: "act", step, start: "unsaved" };
    withdrawUnsavedStart(run, step);
    return { type: "loop" };
  }
  if (starts === 0) return { type: "act", step, start: "first" };
  if (tool?.idempotent === true && starts < MAX_STARTS) return { type: "act", step, start: "restart" };
  step.outcome = "interrupted";
  step.error = {
    code: "interrupted",
    message:
      tool?.idempotent === true
        ? `\`${decision.tool}\` was started ${starts} times without finishing; it is not started again.`
        : `The process stopped while \`${decision.tool}\` was running; whether it took effect is unknown, so it is not repeated.`,
  };
  run.record("tool_ended", {
    step: step.index,
    tool: decision.tool,
    outcome: "interrupted",
    resultDigest: null,
    error: step.error,
  });
  return { type: "loop" };
}

/** Ends a run that no process here drives (paused, or crashed) as stopped, from the store. */
async function cancel(core: AgentCore, runId: string): Promise<TakeOver> {
  const { store } = core;
  if (store === undefined)
    throw new StateError("run_not_found", `Run \`${runId}\` is not running here and this agent has no store.`, {
      details: { runId },
    });
  const state = await store.load(runId);
  if (state === null)
    throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
  if (ENDED_STATUSES.has(state.status)) return { type: "unchanged", reason: "ended", state };
  const trail = await core.audit.read(runId);
  const run = new ActiveRun(core, state, {
    head: headOf(trail, state),
    stored: true,
    skill: skillOf(core, state.skill),
  });
  run.controller.abort();
  const headSeq = state.auditHead?.seq ?? -1;
  const later = trail.filter((record) => record.seq > headSeq);
  const withdrawn = withdrawCall(run, later);
  const unsaved = withdrawn === undefined ? unsavedStart(run, later) : undefined;
  // Answers recorded for the paused run and not yet in a separate sink are audited with the claim, and
  // so is the answer a crashed resume's claim saved in the state but never wrote to the trail.
  const leftover = leftoverAnswerRecords(core, state, trail);
  try {
    await run.claim(
      [["run_resumed", { reason: "cancel" }], ...leftover, ...lostApprovalRecords(state, trail, leftover)],
      () => {
        state.answers = [];
      },
    );
  } catch (error) {
    // Another process moved the run first (a cancel of its own, say): a run that has ended is returned.
    if (!isLeashError(error, "stale_state")) throw error;
    const now = await endedByCancel(core, runId, headSeq);
    if (now !== undefined) return { type: "unchanged", reason: "ended", state: now };
    throw error;
  }
  // A start the trail holds and the state never saved never ran: the trail says so before the end.
  const open = state.steps.findLast((step) => step.outcome === null);
  if (unsaved !== undefined && open !== undefined) withdrawUnsavedStart(run, open);
  return { type: "claimed", run, next: { type: "end", ending: { status: "stopped", reason: "cancelled" } } };
}
