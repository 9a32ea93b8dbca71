import type { ApprovalRequest } from "../approvals/approval.js";
import type { RecordedAnswer, RunState } from "./run-state.js";
import type { Fact, Mismatch, TrailFacts } from "./trail-facts.js";
import { takeAnsweredFact } from "./answered-fact.js";
import { requestAsRecorded, sameJson, shown } from "./trail-facts.js";

/** The last `approval_requested` record of a step. */
function lastRequest(facts: TrailFacts, step: number): Fact | undefined {
  return (facts.byStep.get(step) ?? []).findLast((fact) => fact.event === "approval_requested");
}

/** One waiting request against the step's last `approval_requested`, field by field. */
function checkRequest(state: RunState, request: ApprovalRequest, facts: TrailFacts, mismatch: Mismatch): void {
  const step = request.step;
  const open = state.steps[step];
  const requested = typeof step === "number" ? lastRequest(facts, step) : undefined;
  if (open === undefined || open.outcome !== null || requested === undefined) {
    mismatch(
      typeof step === "number" ? step : undefined,
      "waiting",
      `The session's waiting list holds a request for step ${shown(step)}, which the trail does not show waiting for a person.`,
    );
    return;
  }
  const { history: _history, ...recorded } = requested.data;
  // A request recorded before requests had kinds (a version-1 trail) was a call's.
  const asked = requestAsRecorded(recorded);
  const saved: Record<string, unknown> = { ...request };
  for (const key of new Set([...Object.keys(saved), ...Object.keys(asked)])) {
    if (!sameJson(saved[key], asked[key])) {
      const field = key === "args" ? "arguments" : key;
      mismatch(
        step,
        `waiting.${field}`,
        `A waiting request's ${field} is ${shown(saved[key])} in the saved state, but ${shown(asked[key])} in the trail (seq ${requested.seq}).`,
      );
    }
  }
}

/**
 * A gate session's waiting list against its records: each request is the last one the trail asked
 * for its step, the step still open; every open step the trail asked about and that has not started
 * is on the list (a request taken off the state alone would hide a call from the people asked);
 * `pending` is the oldest, bound to the history its record gives.
 */
export function checkWaiting(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const waiting: ApprovalRequest[] = Array.isArray(state.waiting) ? state.waiting : [];
  if (facts.ended !== undefined) {
    if (waiting.length > 0 || state.pending !== undefined)
      mismatch(undefined, "waiting", "The session has ended in the trail, yet its saved state holds requests waiting.");
    return;
  }
  for (const request of waiting) checkRequest(state, request, facts, mismatch);
  const listed = new Set(waiting.map((request) => request.step));
  state.steps.forEach((step, index) => {
    if (step.outcome !== null || (step.starts ?? 0) > 0 || listed.has(index)) return;
    const requested = lastRequest(facts, index);
    if (requested !== undefined)
      mismatch(
        index,
        "waiting",
        `The trail asked a person about step ${index} (seq ${requested.seq}), which is still open, but the saved state's waiting list lacks it.`,
      );
  });
  const oldest = waiting[0];
  if (!sameJson(state.pending, oldest))
    mismatch(oldest?.step, "pending", "The session's pending request is not the oldest of its waiting list.");
  const history = oldest === undefined ? undefined : lastRequest(facts, oldest.step)?.data.history;
  if (state.pendingHistory !== history)
    mismatch(oldest?.step, "pending.history", "The history the pending request is bound to differs from the trail's.");
}

/**
 * A gate session's recorded answers: each one an `approval_answered` the store recorded for a
 * request still waiting, one record each; and, the other way round, every answer the trail recorded
 * for a waiting request is still in the state (a denial dropped from the state alone would let the
 * call run).
 */
export function checkWaitingAnswers(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const answers: RecordedAnswer[] = Array.isArray(state.answers) ? state.answers : [];
  const waiting: ApprovalRequest[] = Array.isArray(state.waiting) ? state.waiting : [];
  const left: Fact[] = [];
  for (const request of waiting) {
    const requested = lastRequest(facts, request.step);
    left.push(
      ...facts.all.filter(
        (fact) =>
          fact.event === "approval_answered" &&
          fact.data.step === request.step &&
          fact.data.recorded === true &&
          fact.data.digest === request.digest &&
          fact.seq > (requested?.seq ?? -1),
      ),
    );
  }
  answers.forEach((answer, index) => {
    if (takeAnsweredFact(left, answer)) return;
    mismatch(
      undefined,
      "answers",
      `Recorded answer ${index} (${answer.granted ? "approved" : "denied"} by ${shown(answer.approver)}) is not an answer the trail recorded for a request still waiting.`,
    );
  });
  for (const fact of left) {
    mismatch(
      typeof fact.data.step === "number" ? fact.data.step : undefined,
      "answers",
      `The trail recorded an answer to a waiting request (${fact.data.granted === true ? "approved" : "denied"} by ${shown(fact.data.approver)}, seq ${fact.seq}) that the saved state does not hold.`,
    );
  }
}
