import type { AuditRecord } from "../audit/audit-record.js";
import { MAX_USAGE } from "../decisions/decision.js";
import { digestOfJson } from "../json/index.js";
import { messageOf } from "../errors/index.js";
import { saidLine } from "../guards/ask-guards.js";
import type { GuardPoint } from "../guards/guard.js";
import type { RecordedAnswer, RunState } from "./run-state.js";
import { checkStep } from "./step-agrees-with-trail.js";
import type { Fact, TrailFacts } from "./trail-facts.js";
import { sameJson, shown, trailFacts } from "./trail-facts.js";

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
  const runId = typeof state?.runId === "string" ? state.runId : "";
  const problems: StateMismatch[] = [];
  const unchecked = new Set<string>([BOOKKEEPING]);
  const mismatch = (step: number | undefined, field: string, message: string): void => {
    // One problem for each part of the state: two records that both disagree with it name it once.
    if (problems.some((problem) => problem.step === step && problem.field === field)) return;
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
    checkPending(state, facts, mismatch);
    checkAnswers(state, facts, mismatch);
    checkTrace(state, facts, mismatch);
    checkUsage(state, facts, mismatch);
  } catch (error) {
    mismatch(undefined, "state", `The saved state could not be checked against the trail: ${messageOf(error)}`);
  }
  return { problems, unchecked: [...unchecked] };
}

type Mismatch = (step: number | undefined, field: string, message: string) => void;

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
    ["limits", state.limits, data.limits],
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

/** The pending request, and the paused status, against the last `approval_requested` and `run_paused`. */
function checkPending(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const paused = facts.all.findLast((fact) => fact.event === "run_paused");
  const after = paused === undefined ? [] : facts.all.filter((fact) => fact.seq > paused.seq);
  // Answers recorded out of process follow the pause; anything else (a resume, a cancel) moved the run on.
  const stillPaused = paused !== undefined && after.every((fact) => fact.event === "approval_answered");
  const pending = state.pending;
  if (state.status !== "awaiting_approval") {
    if (stillPaused && facts.ended === undefined)
      mismatch(
        undefined,
        "status",
        `The run is ${shown(state.status)} in the saved state, but the trail says it is paused for approval (seq ${paused.seq}).`,
      );
    if (pending !== undefined && facts.ended === undefined)
      mismatch(undefined, "pending", `The saved state holds a pending request, but the run is ${shown(state.status)}.`);
    return;
  }
  if (!stillPaused || pending === undefined) {
    mismatch(
      undefined,
      "status",
      "The run awaits approval in the saved state, but the trail does not say it paused for the request it holds.",
    );
    return;
  }
  const step = pending.step;
  const requested = facts.all.findLast((fact) => fact.event === "approval_requested" && fact.data.step === step);
  if (paused.data.step !== step || paused.data.digest !== pending.digest || requested === undefined) {
    mismatch(
      step,
      "pending",
      `The pending request (step ${shown(step)}, digest ${shown(pending.digest)}) is not the request the trail paused for (seq ${paused.seq}).`,
    );
    return;
  }
  const { history, ...asked } = requested.data;
  const saved: Record<string, unknown> = { ...pending };
  for (const key of new Set([...Object.keys(saved), ...Object.keys(asked)])) {
    if (!sameJson(saved[key], asked[key])) {
      const field = key === "args" ? "arguments" : key;
      mismatch(
        step,
        `pending.${field}`,
        `The pending request's ${field} is ${shown(saved[key])} in the saved state, but ${shown(asked[key])} in the trail (seq ${requested.seq}).`,
      );
    }
  }
  if (state.pendingHistory !== history)
    mismatch(
      step,
      "pending.history",
      `The history the pending request is bound to differs from the trail's (seq ${requested.seq}).`,
    );
}

/** Each recorded answer must be an `approval_answered` record of the pending request, one record each. */
function checkAnswers(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const answers: RecordedAnswer[] = Array.isArray(state.answers) ? state.answers : [];
  if (answers.length === 0) return;
  const step = state.pending?.step;
  const requested = facts.all.findLast((fact) => fact.event === "approval_requested" && fact.data.step === step);
  const left: Fact[] = facts.all.filter(
    (fact) =>
      fact.event === "approval_answered" &&
      fact.data.step === step &&
      fact.data.recorded === true &&
      fact.seq > (requested?.seq ?? -1),
  );
  answers.forEach((answer, index) => {
    const at = left.findIndex(
      (fact) =>
        fact.data.digest === answer.digest &&
        fact.data.approver === answer.approver &&
        fact.data.granted === answer.granted &&
        fact.data.note === answer.note &&
        sameJson(fact.data.origin, answer.origin),
    );
    if (at >= 0) {
      left.splice(at, 1);
      return;
    }
    mismatch(
      step,
      "answers",
      `Recorded answer ${index} (${answer.granted ? "approved" : "denied"} by ${shown(answer.approver)}${answer.note === undefined ? "" : `, note ${shown(answer.note)}`}) is not an answer the trail recorded for the pending request.`,
    );
  });
}

/** The guards' lines and the tools that ran, rebuilt from the records in their order. */
function checkTrace(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const said: string[] = [];
  const ran: string[] = [];
  const started = new Map<number, string>();
  for (const { event, data } of facts.all) {
    if (event === "guard_blocked") {
      said.push(
        saidLine(
          data.point as GuardPoint,
          String(data.guard),
          String(data.why),
          typeof data.tool === "string" ? data.tool : undefined,
        ),
      );
    } else if (event === "tool_started" && data.start === 1) {
      ran.push(String(data.tool));
      started.set(Number(data.step), String(data.tool));
    } else if (event === "tool_ended" && data.outcome === "stopped" && started.has(Number(data.step))) {
      // A call withdrawn before it started is taken out of what ran.
      const at = ran.lastIndexOf(started.get(Number(data.step))!);
      if (at >= 0) ran.splice(at, 1);
    }
  }
  if (!sameJson(state.said, said))
    mismatch(
      undefined,
      "said",
      `What the guards said is ${shown(state.said)} in the saved state, but ${shown(said)} in the trail.`,
    );
  const rejections = facts.all.filter((fact) => fact.event === "answer_rejected").length;
  if (state.rejections !== rejections)
    mismatch(
      undefined,
      "rejections",
      `The saved state counts ${shown(state.rejections)} refused answers, but the trail records ${rejections}.`,
    );
  if (!sameJson(state.ran, ran))
    mismatch(
      undefined,
      "ran",
      `The tools that ran are ${shown(state.ran)} in the saved state, but ${shown(ran)} in the trail.`,
    );
}

/**
 * Usage and tool calls: an ended run's against its `run_ended` record, exactly; a run still going
 * against the sums of its records, added in the order the run added them.
 */
function checkUsage(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const ended = facts.ended?.data;
  const expected = ended !== undefined ? recordedUsage(ended) : summedUsage(facts);
  const where =
    ended !== undefined ? `the run's end in the trail (seq ${facts.ended!.seq})` : "the trail's records add up to";
  const usage = state.usage ?? { tokens: Number.NaN, cost: Number.NaN };
  const close = (left: number, right: number): boolean =>
    ended !== undefined
      ? left === right
      : Math.abs(left - right) <= 1e-9 * Math.max(1, Math.abs(left), Math.abs(right));
  if (usage.tokens !== expected.tokens || !close(usage.cost, expected.cost))
    mismatch(
      undefined,
      "usage",
      `The run's usage is ${shown(state.usage)} in the saved state, but ${where} ${shown({ tokens: expected.tokens, cost: expected.cost })}.`,
    );
  if (state.toolCalls !== expected.toolCalls)
    mismatch(
      undefined,
      "toolCalls",
      `The run made ${shown(state.toolCalls)} tool calls in the saved state, but ${where} ${shown(expected.toolCalls)}.`,
    );
}

interface Totals {
  tokens: number;
  cost: number;
  toolCalls: number;
}

function recordedUsage(data: Record<string, unknown>): Totals {
  const usage = typeof data.usage === "object" && data.usage !== null ? (data.usage as Record<string, unknown>) : {};
  return { tokens: Number(usage.tokens), cost: Number(usage.cost), toolCalls: Number(data.toolCalls) };
}

function summedUsage(facts: TrailFacts): Totals {
  const totals: Totals = { tokens: 0, cost: 0, toolCalls: 0 };
  const add = (tokens: unknown, cost: unknown): void => {
    if (typeof tokens === "number") totals.tokens = Math.min(MAX_USAGE, totals.tokens + tokens);
    if (typeof cost === "number") totals.cost = Math.min(MAX_USAGE, totals.cost + cost);
  };
  const charged = new Map<number, number>();
  for (const { event, data } of facts.all) {
    if (event === "model_called") {
      const usage = data.usage as { tokens?: unknown; cost?: unknown } | null | undefined;
      add(usage?.tokens, usage?.cost);
    } else if (event === "decision_made") {
      const usage = (data.decision as { usage?: { tokens?: unknown; cost?: unknown } } | null | undefined)?.usage;
      if (usage !== undefined) add(usage.tokens, usage.cost);
    } else if (event === "tool_started" && data.start === 1) {
      totals.toolCalls += 1;
      add(0, data.charged);
      charged.set(Number(data.step), typeof data.charged === "number" ? data.charged : 0);
    } else if (event === "tool_ended" && data.outcome === "stopped" && charged.has(Number(data.step))) {
      // A call withdrawn before it started gives its charge back.
      totals.toolCalls -= 1;
      totals.cost -= charged.get(Number(data.step))!;
      charged.delete(Number(data.step));
    }
  }
  return totals;
}
