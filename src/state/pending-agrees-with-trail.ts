import type { RecordedAnswer, RunState } from "./run-state.js";
import type { Fact, Mismatch, TrailFacts } from "./trail-facts.js";
import { takeAnsweredFact } from "./answered-fact.js";
import { requestAsRecorded, sameJson, shown } from "./trail-facts.js";

/** The pending request, and the paused status, against the last `approval_requested` and `run_paused`. */
export function checkPending(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
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
  const { history, grantedBy: _asked, ...recorded } = requested.data;
  // A request recorded before requests had kinds (a version-1 trail) was a call's.
  const asked = requestAsRecorded(recorded);
  // Who granted so far is worked out after the request, by the resumes that recorded the answers.
  const { grantedBy, ...saved }: Record<string, unknown> = { ...pending };
  checkGrantedBy(
    grantedBy,
    pending.digest,
    step,
    facts.all.filter((fact) => fact.seq > requested.seq),
    mismatch,
  );
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

/**
 * `pending.grantedBy` against the answers the trail recorded since the request: each name once, each
 * one an approver whose grant of the request the trail records and does not say was refused.
 */
function checkGrantedBy(
  grantedBy: unknown,
  digest: string,
  step: number,
  later: readonly Fact[],
  mismatch: Mismatch,
): void {
  if (grantedBy === undefined) return;
  const granters = new Set(
    later
      .filter(
        (fact) =>
          fact.event === "approval_answered" &&
          // An answer the store recorded with its record says nothing of the policy (it cannot judge it).
          fact.data.accepted !== false &&
          fact.data.granted === true &&
          fact.data.digest === digest,
      )
      .map((fact) => fact.data.approver),
  );
  const names = Array.isArray(grantedBy) ? (grantedBy as unknown[]) : [];
  const unknown = names.filter((name, at) => !granters.has(name) || names.indexOf(name) !== at);
  if (!Array.isArray(grantedBy) || unknown.length > 0)
    mismatch(
      step,
      "pending.grantedBy",
      `The pending request's grantedBy is ${shown(grantedBy)} in the saved state, but the trail records no accepted grant of it by ${shown(unknown)} (or names one twice).`,
    );
}

/** Each recorded answer must be an `approval_answered` record of the pending request, one record each. */
export function checkAnswers(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const answers: RecordedAnswer[] = Array.isArray(state.answers) ? state.answers : [];
  if (answers.length === 0 && state.pending === undefined) return;
  const step = state.pending?.step;
  const requested = facts.all.findLast((fact) => fact.event === "approval_requested" && fact.data.step === step);
  const left: Fact[] = facts.all.filter(
    (fact) =>
      fact.event === "approval_answered" &&
      fact.data.step === step &&
      fact.data.recorded === true &&
      fact.seq > (requested?.seq ?? -1),
  );
  let unmatched = 0;
  answers.forEach((answer, index) => {
    if (takeAnsweredFact(left, answer)) return;
    unmatched += 1;
    mismatch(
      step,
      "answers",
      `Recorded answer ${index} (${answer.granted ? "approved" : "denied"} by ${shown(answer.approver)}${answer.note === undefined ? "" : `, note ${shown(answer.note)}`}) is not an answer the trail recorded for the pending request.`,
    );
  });
  // The other way round: while the run still waits, every answer the trail recorded for the request
  // must still be in the state. A denial removed from the state alone would let a resume run an action
  // a person refused, since a resume decides on the state's answers.
  // An answer changed in the state is named once above, not again as one the state lacks.
  if (state.status !== "awaiting_approval" || state.pending === undefined) return;
  for (const fact of left.slice(unmatched)) {
    const granted = fact.data.granted === true;
    mismatch(
      step,
      "answers",
      `The trail recorded an answer to the pending request (${granted ? "approved" : "denied"} by ${shown(fact.data.approver)}, seq ${fact.seq}) that the saved state does not hold.`,
    );
  }
}
