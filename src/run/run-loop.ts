import type { ApprovalJson, ApprovalRequest } from "../approvals/approval.js";
import type { Json } from "../json/index.js";
import { digestOfJson } from "../json/index.js";
import type { StopReason } from "../limits/limits.js";
import { DEFAULT_MAX_REJECTIONS } from "../limits/limits.js";
import type { RunState } from "../state/run-state.js";
import { detachedCopy } from "../state/run-state.js";
import type { Failure, RecordedAnswer, Step } from "../state/run-state.js";
import { assertNever } from "../errors/index.js";
import type { ActiveRun } from "./active-run.js";
import { applyEdit } from "./apply-edit.js";
import { approvalGate } from "./approval-gate.js";
import { answeredData } from "./audit-answers.js";
import { recordGrantAnswers } from "./standing-grant.js";
import { askPlanner } from "./ask-planner.js";
import { passGates } from "./gates.js";
import { invokeTool } from "./invoke-tool.js";
import { judgeAnswer } from "./judge-answer.js";
import { limitRequest, limitToAsk } from "./limit-request.js";
import type { BudgetMeasure } from "./limit-request.js";
import { callLimitReached, plannerBudgetReached, plannerLimitReached, runLimitReached } from "./limit-checks.js";
import { isBudgetStopReason } from "../limits/limits.js";
import type { BudgetRefusal } from "../stores/budget-info.js";
import { budgetRefusalOf, budgetUsed } from "../stores/budget-info.js";
import { withdrawUnsavedStart } from "./withdrawn-call.js";
import { recordWaiting, settleRequest } from "./waiting-requests.js";

/** How a run ends, when it does. */
export type Ending =
  | { status: "completed"; answer: Json }
  | { status: "stopped"; reason: StopReason }
  | { status: "failed"; failure: Failure };

/**
 * Gives a step the run left open (a pending approval, a call saved before a crash) an outcome and its
 * record as the run ends: `interrupted` (with `tool_ended`) for a call that started and never ended,
 * `stopped` (with `step_denied`) for a step that never started.
 */
function closeOpenStep(run: ActiveRun, step: Step, code: string): void {
  const { decision } = step;
  if (decision.type === "act" && (step.starts ?? 0) > 0) {
    step.outcome = "interrupted";
    step.error = {
      code: "interrupted",
      message: `The run ended (${code}) while \`${decision.tool}\` was started and had not ended; whether it took effect is unknown.`,
    };
    run.record("tool_ended", {
      step: step.index,
      tool: decision.tool,
      outcome: "interrupted",
      resultDigest: null,
      error: { ...step.error },
    });
    return;
  }
  deny(run, step, "stopped", code, `The run ended (${code}) before this step could start.`);
}

/** Ends the run: one `run_ended` record, one durable checkpoint. */
async function end(run: ActiveRun, ending: Ending): Promise<RunState> {
  const { state } = run;
  const code =
    ending.status === "stopped" ? ending.reason : ending.status === "failed" ? ending.failure.code : "completed";
  // A loop's run has at most one open step, its last; a gate's session may have several (calls
  // waiting for a person beside the one that ended it), and each is closed.
  const open = state.gate === true ? state.steps.filter((step) => step.outcome === null) : state.steps.slice(-1);
  for (const step of open) if (step.outcome === null) closeOpenStep(run, step, code);
  state.status = ending.status;
  state.pending = undefined;
  state.pendingHistory = undefined;
  state.waiting = undefined;
  // A gate's answers recorded for requests its end closed are in its trail already (its store is its
  // sink): with nothing left waiting, the state keeps none.
  if (state.gate === true) state.answers = state.answers.filter((answer) => answer.audited !== true);
  const data: Record<string, Json> = {
    status: ending.status,
    steps: state.steps.length,
    toolCalls: state.toolCalls,
    usage: { ...state.usage },
  };
  if (ending.status === "completed") {
    state.answer = ending.answer;
    data.answerDigest = digestOfJson(ending.answer);
  } else if (ending.status === "stopped") {
    state.stopReason = ending.reason;
    data.stopReason = ending.reason;
  } else {
    state.failure = ending.failure;
    data.failure = { ...ending.failure };
  }
  run.record("run_ended", data);
  await run.checkpoint();
  // The run is sealed now; the caller gets a copy, so nothing that comes in late (a model call a
  // planner left running) can change what was returned.
  return detachedCopy(state);
}

function deny(run: ActiveRun, step: Step, outcome: NonNullable<Step["outcome"]>, code: string, message: string): void {
  step.outcome = outcome;
  step.error = { code, message };
  run.record("step_denied", {
    step: step.index,
    tool: step.decision.type === "act" ? step.decision.tool : null,
    outcome,
    message,
  });
}

/**
 * Ends the run at a step a limit or a cancel kept from starting. A restart of a call that started
 * before a crash is left open, for the end to close as `interrupted`: its first start may have
 * taken effect.
 */
function stopStep(run: ActiveRun, step: Step, reason: StopReason): Promise<RunState> {
  if ((step.starts ?? 0) > 0) return end(run, { status: "stopped", reason });
  step.outcome = "stopped";
  step.error = { code: reason, message: `The run reached ${reason} before the call could start.` };
  return end(run, { status: "stopped", reason });
}

/**
 * Pauses the run for a person: the request and the history it is bound to become `pending`, with
 * `approval_requested` and `run_paused`, in one durable checkpoint. `step` is the step left open
 * (a call asked about, or kept from starting by a limit); none for a limit met before the planner.
 */
async function pause(
  run: ActiveRun,
  request: ApprovalRequest,
  history: string,
  step?: Step,
  answered?: RecordedAnswer,
): Promise<RunState> {
  const { state } = run;
  state.status = "awaiting_approval";
  state.pending = request;
  state.pendingHistory = history;
  if (request.kind === "call") {
    const { grantedBy: _grantedBy, ...asked } = request;
    run.record("approval_requested", { ...asked, ...(asked.quorum === undefined ? {} : { grantedBy: [] }), history });
  } else {
    run.record("approval_requested", { ...request, history });
  }
  // A limit request's records say so, so that they are read as the run's, not as its step's.
  const kind = request.kind === "limit" ? { kind: "limit" } : {};
  run.record("run_paused", { step: request.step, digest: request.digest, ...kind });
  // The approver's grant short of a quorum is the first recorded answer of the paused request.
  if (answered !== undefined) {
    const index = state.answers.length;
    run.record("approval_answered", answeredData(request.step, { index, json: answered }, true));
    state.answers = [...state.answers, { ...answered, audited: true }];
  }
  await run.checkpoint();
  // A cancel that landed while the pause was saved ends the paused run here, as a cancel of a
  // stored paused run does: the pending step is stopped and no later answer can run it.
  const late = runLimitReached(run);
  if (late !== undefined && run.controller.signal.aborted)
    return step === undefined ? end(run, { status: "stopped", reason: late }) : stopStep(run, step, late);
  // The pause is durable and the next driver is a resume: this one writes nothing more.
  const paused = detachedCopy(state);
  run.letGo();
  // Standing grants short of a quorum above one are recorded as answers, as a person's would be,
  // now that there is a request to answer; a resume counts them with the people's.
  if (request.kind === "call" && (request.quorum ?? 1) > 1 && run.core.store?.grants !== undefined) {
    const answered = await recordGrantAnswers(run.core, state.runId, run.tools);
    if (answered !== undefined) return answered;
  }
  return paused;
}

/**
 * What a shared budget's limit has used and allows now, read from its store, for a limit request; a
 * budget that is gone (or whose limit was removed) measures 0 of 0.
 */
async function budgetMeasure(run: ActiveRun, reason: StopReason): Promise<BudgetMeasure | undefined> {
  const key = run.state.budget;
  const { store } = run.core;
  if (!isBudgetStopReason(reason) || key === undefined || store?.budget === undefined) return undefined;
  const budget = await store.budget(key);
  if (budget === null) return { used: 0, allowed: 0 };
  const { used, allowed } = budgetUsed(budget, reason);
  return { used, allowed: allowed ?? 0 };
}

/** Ends the run on a limit, or pauses it for a person's raise when `askToRaise` names the limit. */
async function limitReached(run: ActiveRun, reason: StopReason): Promise<RunState> {
  const ask = limitToAsk(run.state, reason);
  if (ask === undefined) return end(run, { status: "stopped", reason });
  const asked = limitRequest(run, ask, run.state.steps.length, await budgetMeasure(run, reason));
  return pause(run, asked.request, asked.history);
}

/**
 * Ends the run at a step its shared budget had no room for (the call was not started), or pauses it
 * there for a person's raise of the budget when `askToRaise` names `"budget"`: closed as a run's own
 * `maxCost` at the gates closes it.
 */
function budgetRefused(run: ActiveRun, step: Step, refusal: BudgetRefusal): Promise<RunState> {
  const ask = limitToAsk(run.state, refusal.reason);
  if (ask === undefined) return stopStep(run, step, refusal.reason);
  const asked = limitRequest(run, ask, step.index, { used: refusal.used, allowed: refusal.allowed });
  return pause(run, asked.request, asked.history, step);
}

/** How an act step is taken: `restart` for a call already charged, `unsaved` for a start the trail holds and the state never saved. */
export interface ActOptions {
  restart: boolean;
  /** The call runs under the start the trail holds (no second `tool_started`); refused, that start is withdrawn first. */
  unsaved?: boolean;
  answer?: ApprovalJson;
}

/**
 * Takes one act step through the gates, the approval and the call. Returns the run's end if the
 * step ended it (a limit, a failure, a pause), else `undefined` to go on.
 */
export async function actStep(run: ActiveRun, step: Step, options: ActOptions): Promise<RunState | undefined> {
  const { state } = run;
  // A start the trail holds that will not run after all is closed in the trail before anything else.
  const withdraw = (): void => {
    if (options.unsaved === true) withdrawUnsavedStart(run, step);
  };
  // The edit of the answer that approves the call (given now, or kept on the step across a crash)
  // takes the place of the proposed arguments before any gate, so every gate checks the call that runs.
  applyEdit(run, step, options.answer ?? step.approval);
  const gates = await passGates(run, step, options.restart);
  // A call taken on with a person's answer no longer waits, whatever a gate now says of it (an
  // edited call a gate refuses): a gate session's waiting request of it is settled with it.
  if (gates.type !== "pass" && options.answer !== undefined && state.gate === true) settleRequest(state, step);
  switch (gates.type) {
    case "deny":
      withdraw();
      deny(run, step, gates.outcome, gates.code, gates.message);
      return undefined;
    case "stop": {
      // A limit the run asks a person to raise pauses it at this step, which starts only once raised.
      const ask = options.unsaved === true ? undefined : limitToAsk(state, gates.reason);
      if (ask !== undefined) {
        const asked = limitRequest(run, ask, step.index);
        return pause(run, asked.request, asked.history, step);
      }
      withdraw();
      return stopStep(run, step, gates.reason);
    }
    case "fail":
      withdraw();
      step.outcome = "blocked";
      step.error = { code: gates.failure.code, message: gates.failure.message };
      return end(run, { status: "failed", failure: gates.failure });
    case "pass":
      break;
    default:
      assertNever(gates, "gate result");
  }
  const approval = await approvalGate(run, step, gates.tool, options.answer);
  // A cancel or a limit may have landed while a person decided: checked again before a pause is
  // saved and, below, in the same synchronous stretch as the charge, so nothing slips in between.
  if (approval.type === "pause") {
    withdraw();
    const reached = runLimitReached(run);
    if (reached !== undefined) return stopStep(run, step, reached);
    // A gate's session does not pause: the request waits beside the session's other calls.
    if (state.gate === true) {
      await recordWaiting(run, approval.request, approval.history);
      return undefined;
    }
    return pause(run, approval.request, approval.history, step, approval.answered);
  }
  if (approval.type === "fail") {
    withdraw();
    step.outcome = "blocked";
    step.error = { code: approval.failure.code, message: approval.failure.message };
    return end(run, { status: "failed", failure: approval.failure });
  }
  settleRequest(state, step);
  if (approval.type === "deny") {
    withdraw();
    step.approval = approval.approval;
    deny(run, step, approval.outcome, approval.outcome, approval.message);
    return undefined;
  }
  if (approval.approval !== undefined) step.approval = approval.approval;
  // An approver that answered with an edit: every gate again, on the edited call, before it runs.
  if (options.answer === undefined && approval.approval !== undefined && applyEdit(run, step, approval.approval))
    return actStep(run, step, { ...options, answer: approval.approval });
  // With a sink separate from the store, the trail takes a call's start before the state does.
  // Saving everything else first leaves the start alone between the two writes: a crash there leaves
  // a state that holds the step and a trail one `tool_started` ahead, which recovery continues from
  // (that start never ran), never writing a second start for the step. Done before the limits are
  // checked, so the check and the charge stay in one synchronous stretch.
  const { store, storeIsSink } = run.core;
  if (store !== undefined && !storeIsSink && options.unsaved !== true) await run.checkpoint();
  const reached = callLimitReached(run, gates.tool, options.restart);
  if (reached !== undefined) {
    withdraw();
    return stopStep(run, step, reached);
  }
  // With a separate sink, the shared budget takes a first start's charge in a transaction of its
  // own before the start is recorded (with the store as sink it rides on the intent's save). The
  // run's own limits were checked first, so when both would stop the call the run's reason is given.
  const budgetTaken =
    store !== undefined &&
    !storeIsSink &&
    !options.restart &&
    options.unsaved !== true &&
    state.budget !== undefined &&
    store.chargeBudget !== undefined;
  if (budgetTaken) {
    try {
      await run.takeToolCharge(gates.tool.cost);
    } catch (error) {
      const refusal = budgetRefusalOf(error);
      if (refusal === undefined) throw error;
      return budgetRefused(run, step, refusal);
    }
    // A cancel or the running time may have landed while the charge was taken: the budget gets it back.
    const late = runLimitReached(run);
    if (late !== undefined) {
      run.chargeBudget({ cost: -gates.tool.cost, toolCalls: -1 });
      return stopStep(run, step, late);
    }
  }
  const ended = await invokeTool(run, step, gates.tool, {
    restart: options.restart,
    unsaved: options.unsaved === true,
    budgetTaken,
  });
  if (ended?.type === "failed") return end(run, { status: "failed", failure: ended.failure });
  if (ended?.type === "stopped") return end(run, { status: "stopped", reason: ended.reason });
  if (ended?.type === "budget") return budgetRefused(run, step, ended.refusal);
  return undefined;
}

/**
 * The run loop: ask the planner, record the decision, then either judge the answer or take the act
 * step through every gate, until the run completes, stops, fails or pauses for a person.
 */
export async function runLoop(run: ActiveRun): Promise<RunState> {
  const { state } = run;
  for (;;) {
    // The run's own limits first: when both would stop it, the run's reason is given.
    const reached = plannerLimitReached(run) ?? (await plannerBudgetReached(run));
    if (reached !== undefined) return limitReached(run, reached);
    const asked = await askPlanner(run);
    if (asked.type === "forced") {
      const forced = asked.end;
      // A limit met inside callModel is asked here, at the planner check, not inside the call: the
      // planner's answer is dropped, and after a raise it is asked again.
      return forced.type === "stop"
        ? limitReached(run, forced.reason)
        : end(run, { status: "failed", failure: forced.failure });
    }
    if (asked.type === "fail") return end(run, { status: "failed", failure: asked.failure });
    const { decision } = asked;
    const step: Step = { index: state.steps.length, decision, outcome: null, result: null };
    state.steps.push(step);
    run.record("decision_made", { step: step.index, decision: decision as unknown as Json });
    if (decision.type === "finish") {
      const verdict = judgeAnswer(run, decision.answer);
      if (verdict.type === "accept") {
        step.outcome = "finished";
        return end(run, { status: "completed", answer: decision.answer });
      }
      if (verdict.type === "fail") {
        step.outcome = "answer_rejected";
        step.error = { code: verdict.failure.code, message: verdict.failure.message };
        return end(run, { status: "failed", failure: verdict.failure });
      }
      step.outcome = "answer_rejected";
      step.error = { code: "answer_rejected", message: verdict.why };
      state.rejections += 1;
      run.record("answer_rejected", { step: step.index, why: verdict.why, rejections: state.rejections });
      const allowed = state.limits.maxRejections ?? DEFAULT_MAX_REJECTIONS;
      if (state.rejections > allowed) {
        const message = `The answer was refused ${state.rejections} times (at most ${allowed} refusals may be followed by another answer); the last: ${verdict.why}`;
        return end(run, { status: "failed", failure: { code: "answer_rejected", message } });
      }
      continue;
    }
    const ended = await actStep(run, step, { restart: false });
    if (ended !== undefined) return ended;
  }
}

export { end as endRun };
