import type { ApprovalRequest } from "../approvals/approval.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { RecordedAnswer, RunState } from "../state/run-state.js";
import type { AgentCore } from "./agent-core.js";

/** A recorded answer whose `approval_answered` record a claim still has to write. */
interface UnauditedAnswer {
  /** Its place in `state.answers`: with the step and the answer itself, what names its record. */
  index: number;
  json: RecordedAnswer;
}

interface AnsweredData {
  step?: unknown;
  recorded?: unknown;
  answer?: unknown;
  digest?: unknown;
  approver?: unknown;
  granted?: unknown;
}

/**
 * The recorded answers of a state (`store.answer`) not yet in the run's trail: neither marked
 * `audited` in the state nor found in the trail as the `approval_answered` record of the same answer
 * (same step, place in `state.answers`, digest, approver and grant). The trail is asked as well as
 * the mark because a process can die after the sink took the records and before the state that
 * marks them was saved: the answer is then audited already, and is never audited twice.
 */
export function unauditedAnswers(state: RunState, trail: readonly AuditRecord[]): UnauditedAnswer[] {
  const step = state.pending?.step ?? null;
  const written = trail
    .filter((record) => record.event === "approval_answered")
    .map((record) => record.data as AnsweredData)
    .filter((data) => data.recorded === true && typeof data.answer === "number" && data.step === step);
  const left: UnauditedAnswer[] = [];
  state.answers.forEach((json, index) => {
    if (json.audited === true) return;
    const found = written.some(
      (data) =>
        data.answer === index &&
        data.digest === json.digest &&
        data.approver === json.approver &&
        data.granted === json.granted,
    );
    if (!found) left.push({ index, json });
  });
  return left;
}

/** The data of the `approval_answered` record of a recorded answer. */
export function answeredData(step: number, item: UnauditedAnswer, accepted: boolean): Record<string, unknown> {
  const { audited: _audited, ...answer } = item.json;
  return {
    step,
    accepted,
    ...(accepted ? {} : { reason: "approver_not_allowed" }),
    recorded: true,
    answer: item.index,
    ...answer,
  };
}

/**
 * The `approval_answered` records a claim writes for the recorded answers not yet in the trail (a
 * cancel, a recovery after a crash between a claim and its records, a refused resume), each judged
 * by `policy.mayApprove` against the pending request (an approver it refuses, or a policy that
 * throws, is recorded as not accepted).
 */
export function leftoverAnswerRecords(
  core: AgentCore,
  state: RunState,
  trail: readonly AuditRecord[],
): [event: string, data: unknown][] {
  const pending = state.pending;
  if (pending === undefined) return [];
  return unauditedAnswers(state, trail).map((item) => [
    "approval_answered",
    answeredData(pending.step, item, mayApprove(core, item.json, pending)),
  ]);
}

function mayApprove(core: AgentCore, answer: RecordedAnswer, pending: ApprovalRequest): boolean {
  try {
    return core.policy.mayApprove(answer.approver, structuredClone(pending), answer.origin) === true;
  } catch {
    return false;
  }
}

/**
 * The `approval_answered` record of an answer a crashed run's open step holds (`step.approval`, saved
 * with a resume's claim) when the trail past the step's request lacks one: with a sink separate from
 * the store, a process killed after the claim's state was saved and before its records were written
 * leaves the answer that authorises the call only in the state. A recovery, or a cancel, of the run
 * audits it (`recovered: true`) before anything else is written. The records the same claim writes
 * (`writing`: the recorded answers audited late) count as the trail.
 */
export function lostApprovalRecords(
  state: RunState,
  trail: readonly AuditRecord[],
  writing: readonly [event: string, data: unknown][] = [],
): [event: string, data: unknown][] {
  const step = state.steps.findLast((item) => item.outcome === null);
  const approval = step?.approval;
  if (step === undefined || approval === undefined) return [];
  const requested = trail.findLastIndex(
    (record) => record.event === "approval_requested" && (record.data as AnsweredData | null)?.step === step.index,
  );
  const answered: [string, unknown][] = [
    ...trail.slice(requested + 1).map((record): [string, unknown] => [record.event, record.data]),
    ...writing,
  ];
  const found = answered.some(([event, raw]) => {
    if (event !== "approval_answered") return false;
    const data = raw as AnsweredData | null;
    return (
      data?.step === step.index &&
      data.digest === approval.digest &&
      data.approver === approval.approver &&
      data.granted === approval.granted
    );
  });
  if (found) return [];
  const { audited: _audited, ...answer } = approval as RecordedAnswer;
  return [["approval_answered", { step: step.index, accepted: true, ...answer, recovered: true }]];
}
