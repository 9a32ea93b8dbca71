import type { AuditRecord } from "../audit/audit-record.js";
import { digestOfJson } from "../json/index.js";
import { messageOf } from "../errors/index.js";
import { isRaisableLimit, RAISABLE_LIMITS } from "../limits/limits.js";
import type { RunState } from "./run-state.js";
import { checkStep } from "./step-agrees-with-trail.js";
import type { TrailFacts } from "./trail-facts.js";
import { sameJson, shown, trailFacts } from "./trail-facts.js";
import type { Mismatch } from "./trail-facts.js";
import { checkAnswers, checkPending } from "./pending-agrees-with-trail.js";
import { checkWaiting, checkWaitingAnswers } from "./waiting-agrees-with-trail.js";
import { checkTrace, checkUsage } from "./totals-agree-with-trail.js";

/**
 * One place where a run's saved state disagrees with what its audit records say: the run, the step
 * when it is a step's, the field (`arguments`, `result`, `outcome`, `pending`, `answers`, `usage`, ...)
 * and what each side says.
 */
export interface StateMismatch {
  problem: "state_mismatch";
  run: string;
  step?: number;
  field: string;
  message: string;
}

/** What {@link stateAgreesWithTrail} found. */
export interface StateCheck {
  /** Every disagreement of the state with the records; `[]` when the state agrees with them. */
  problems: StateMismatch[];
  /**
   * The parts of the state a person may be shown that no record carries, so that the check could not
   * cover them (`createdAt`, a denied step's error code, ...): true or not, the trail does not say.
   */
  unchecked: string[];
}

/** What no record of any run carries: the state's own bookkeeping. */
const BOOKKEEPING = "createdAt, updatedAt, revision and elapsedMs (bookkeeping no record carries)";

/**
 * Checks that a run's saved state (as a store's `load()` gives it, its step rows assembled) says what
 * its audit records say: the goal and the run's start, every step's decision (tool, arguments,
 * reason), outcome, error, result digest and the answer it keeps, the pending request, the recorded
 * answers (approver, grant, note, origin), the guards' lines, the tools that ran, usage and tool
 * calls, and the run's end (status, stop reason, failure, the answer's digest). It names every
 * disagreement as a `state_mismatch`, and lists what the records do not carry as `unchecked`.
 *
 * It checks the state against the records as given: whether the records' chain holds is
 * `verifyAudit`'s to say, and the two together say whether what a person is shown is what the trail
 * proves. It never throws, whatever it is given (records of other runs are left out).
 *
 * @example
 * const { problems } = stateAgreesWithTrail(await store.load(runId), await store.read(runId));
 * for (const { step, field, message } of problems) console.log(step, field, message);
 */
export function stateAgreesWithTrail(state: RunState, records: readonly AuditRecord[]): StateCheck {
  let runId = "";
  try {
    runId = typeof state?.runId === "string" ? state.runId : "";
  } catch {
    // A state whose fields cannot be read (a Proxy that throws) is reported below, under no run id.
  }
  const problems: StateMismatch[] = [];
  const named = new Set<string>();
  const unchecked = new Set<string>([BOOKKEEPING]);
  const mismatch = (step: number | undefined, field: string, message: string): void => {
    // One problem for each part of the state: two records that both disagree with it name it once.
    const key = `${step ?? ""}\u0000${field}`;
    if (named.has(key)) return;
    named.add(key);
    problems.push({ problem: "state_mismatch", run: runId, ...(step === undefined ? {} : { step }), field, message });
  };
  try {
    const facts = trailFacts(runId, records);
    if (facts.all.length === 0) {
      mismatch(
        undefined,
        "trail",
        `The trail holds no record of run ${shown(runId)}: nothing in its saved state is covered.`,
      );
      return { problems, unchecked: [...unchecked] };
    }
    const head = state.auditHead;
    if (
      head !== null &&
      head !== undefined &&
      !records.some((record) => record?.run === runId && record.seq === head.seq && record.digest === head.digest)
    ) {
      // The state is ahead of a trail cut short: what it says past the cut is covered by nothing, and
      // one problem says so rather than one for every field the missing records held.
      mismatch(
        undefined,
        "auditHead",
        `The saved state points at record ${shown(head.seq)} of its run, which the trail does not hold: what the state says past the trail's end is not covered.`,
      );
      return { problems, unchecked: [...unchecked] };
    }
    checkStart(state, facts, mismatch);
    const pendingStep = state.status === "awaiting_approval" ? state.pending?.step : undefined;
    const steps = Array.isArray(state.steps) ? state.steps : [];
    const context = { facts, mismatch, unchecked: (what: string) => unchecked.add(what), pendingStep };
    steps.forEach((step, index) => checkStep(step, index, context));
    const decided = facts.all.filter((fact) => fact.event === "decision_made");
    const beyond = decided.filter((fact) => typeof fact.data.step !== "number" || fact.data.step >= steps.length);
    if (beyond.length > 0)
      mismatch(
        undefined,
        "steps",
        `The saved state has ${steps.length} steps, but the trail records a decision for step ${shown(beyond[0]!.data.step)} (seq ${beyond[0]!.seq}).`,
      );
    checkEnd(state, facts, mismatch);
    // A gate's session waits on several requests at once, between calls, while it runs.
    if (state.gate === true) {
      checkWaiting(state, facts, mismatch);
      checkWaitingAnswers(state, facts, mismatch);
    } else {
      checkPending(state, facts, mismatch);
      checkAnswers(state, facts, mismatch);
    }
    checkTrace(state, facts, mismatch);
    checkUsage(state, facts, mismatch);
  } catch (error) {
    mismatch(undefined, "state", `The saved state could not be checked against the trail: ${messageOf(error)}`);
  }
  return { problems, unchecked: [...unchecked] };
}

/**
 * The limits the trail says the run has now: those it started with, each `limit_raised` applied in
 * order (a raise a person gave to a limit request).
 */
function limitsAsRaised(started: unknown, facts: TrailFacts): unknown {
  const raises = facts.all.filter((fact) => fact.event === "limit_raised");
  if (raises.length === 0 || typeof started !== "object" || started === null) return started;
  const limits: Record<string, unknown> = { ...(started as Record<string, unknown>) };
  for (const { data } of raises) {
    if (typeof data.limit === "string" && isRaisableLimit(data.limit)) limits[RAISABLE_LIMITS[data.limit]] = data.to;
  }
  return limits;
}

function checkStart(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const started = facts.started;
  if (started === undefined) {
    mismatch(undefined, "goal", "The trail holds no run_started record: the goal and the run's start are not covered.");
    return;
  }
  const data = started.data;
  const fields: [string, unknown, unknown][] = [
    ["goal", state.goal, data.goal],
    ["nonce", state.nonce, data.nonce],
    ["agent", state.agent, data.agent],
    ["principal", state.principal ?? null, data.principal],
    ["skill", state.skill ?? null, data.skill],
    ["attempt", state.attempt, data.attempt],
    ["retryOf", state.retryOf ?? null, data.retryOf],
    ["limits", state.limits, limitsAsRaised(data.limits, facts)],
    ["gate", state.gate ?? null, data.gate ?? null],
    ["budget", state.budget ?? null, data.budget ?? null],
    ["sponsor", state.sponsor ?? null, data.sponsor ?? null],
  ];
  for (const [field, saved, recorded] of fields) {
    if (!sameJson(saved, recorded))
      mismatch(
        undefined,
        field,
        `The run's ${field} is ${shown(saved)} in the saved state, but ${shown(recorded)} in the trail (seq ${started.seq}).`,
      );
  }
}

function checkEnd(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const ended = facts.ended;
  if (ended === undefined) {
    if (state.status !== "running" && state.status !== "awaiting_approval")
      mismatch(
        undefined,
        "status",
        `The run is ${shown(state.status)} in the saved state, but the trail records no end of it.`,
      );
    for (const [field, value] of [
      ["stopReason", state.stopReason],
      ["failure", state.failure],
      ["answer", state.answer],
    ] as const) {
      if (value !== undefined)
        mismatch(
          undefined,
          field,
          `The saved state gives the run a ${field} (${shown(value)}), but the trail records no end of it.`,
        );
    }
    return;
  }
  const data = ended.data;
  const at = `(seq ${ended.seq})`;
  if (state.status !== data.status)
    mismatch(
      undefined,
      "status",
      `The run is ${shown(state.status)} in the saved state, but ${shown(data.status)} in the trail ${at}.`,
    );
  if (!sameJson(state.stopReason, data.stopReason))
    mismatch(
      undefined,
      "stopReason",
      `The run's stop reason is ${shown(state.stopReason)} in the saved state, but ${shown(data.stopReason)} in the trail ${at}.`,
    );
  if (
    !sameJson(
      state.failure === undefined ? undefined : { code: state.failure.code, message: state.failure.message },
      data.failure,
    )
  )
    mismatch(
      undefined,
      "failure",
      `The run's failure is ${shown(state.failure)} in the saved state, but ${shown(data.failure)} in the trail ${at}.`,
    );
  const answerDigest = state.answer === undefined ? undefined : safeDigest(state.answer);
  if (answerDigest !== data.answerDigest)
    mismatch(
      undefined,
      "answer",
      `The run's answer ${shown(state.answer)} in the saved state is not the answer whose digest the trail recorded ${at}.`,
    );
  if (state.steps.length !== data.steps)
    mismatch(
      undefined,
      "steps",
      `The saved state has ${state.steps.length} steps, but the run ended after ${shown(data.steps)} in the trail ${at}.`,
    );
  if (state.pending !== undefined)
    mismatch(
      undefined,
      "pending",
      `The saved state holds a pending request, but the run has ended in the trail ${at}.`,
    );
}

function safeDigest(value: unknown): string | undefined {
  try {
    return digestOfJson(value);
  } catch {
    return undefined;
  }
}
