import { stateAgreesWithTrail } from "../state/state-agrees-with-trail.js";
import { verifyAudit } from "../audit/verify-audit.js";
import type { AuditProblem } from "../audit/audit-problem.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { RunState } from "../state/run-state.js";
import type { StateCheck } from "../state/state-agrees-with-trail.js";

/** What the chain of one run says about its state. */
export interface TrailCheck {
  /** How many records the run has. */
  records: number;
  /** What `verifyAudit` found, the state's head included (`truncated` when the trail lacks it). */
  problems: AuditProblem[];
  /** Whether the trail holds the record the state's `auditHead` names; null when the state has no head. */
  holdsHead: boolean | null;
  /** Whether that record is the run's last: nothing was written after the state was saved. */
  headIsLast: boolean | null;
  /**
   * The origin each accepted answer carried, by step, from the trail's `approval_answered` records:
   * a step keeps who approved it, and the trail keeps where the answer came from.
   */
  origins: Map<number, unknown>;
  /** Whether the saved state says what the records say ({@link stateAgreesWithTrail}), and what they do not cover. */
  state: StateCheck;
  /**
   * Whether what a person is shown of the run is what its trail proves: the chain holds, it holds the
   * state's head, and the state agrees with it.
   */
  verified: boolean;
}

/** The origins of the accepted answers in a run's records, by step (the last one for a step wins). */
function originsOf(records: readonly AuditRecord[]): Map<number, unknown> {
  const origins = new Map<number, unknown>();
  for (const record of records) {
    if (record.event !== "approval_answered") continue;
    const data = record.data as { step?: unknown; accepted?: unknown; origin?: unknown } | null;
    if (data === null || typeof data !== "object" || typeof data.step !== "number") continue;
    if (data.accepted !== false && data.origin !== undefined) origins.set(data.step, data.origin);
  }
  return origins;
}

/**
 * Checks a run's records against its state: the chain must hold, and it must hold the state's
 * `auditHead`, since a chain alone cannot show that its last records were cut off.
 */
export function checkRunTrail(state: RunState, records: readonly AuditRecord[]): TrailCheck {
  const head = state.auditHead;
  const problems = verifyAudit(records, head === null ? undefined : { heads: { [state.runId]: head } });
  const origins = originsOf(records);
  const agreement = stateAgreesWithTrail(state, records);
  const verified = problems.length === 0 && agreement.problems.length === 0;
  const base = { records: records.length, problems, origins, state: agreement, verified };
  if (head === null) return { ...base, holdsHead: null, headIsLast: null };
  const holdsHead = records.some((record) => record.seq === head.seq && record.digest === head.digest);
  const last = records.at(-1);
  const headIsLast = last !== undefined && last.seq === head.seq && last.digest === head.digest;
  return { ...base, holdsHead, headIsLast };
}

/**
 * What a check covers, in one sentence for a person: "verified" only when the chain holds and the
 * saved state agrees with it; otherwise which part is not covered, e.g. "chain verified, but the
 * saved state disagrees with it: step 2 arguments".
 */
export function coverageText(check: Pick<TrailCheck, "problems" | "state" | "verified">): string {
  if (check.verified) return "verified";
  const parts = disagreeingParts(check.state);
  if (check.problems.length > 0) {
    const count = `${check.problems.length} problem${check.problems.length === 1 ? "" : "s"}`;
    return parts.length === 0
      ? `NOT verified: the chain has ${count}`
      : `NOT verified: the chain has ${count}, and the saved state disagrees with it: ${parts.join(", ")}`;
  }
  return `chain verified, but the saved state disagrees with it: ${parts.join(", ")}`;
}

/** The parts of a state that disagree with the trail, once each: `step 2 arguments`, `usage`. */
export function disagreeingParts(state: StateCheck): string[] {
  const parts = state.problems.map((problem) =>
    problem.step === undefined ? problem.field : `step ${problem.step} ${problem.field}`,
  );
  return [...new Set(parts)];
}

/** One line per problem: run, seq, problem and what it means. */
export function problemLines(
  problems: readonly (Pick<AuditProblem, "run" | "seq" | "message"> & { problem: string })[],
): string[] {
  return problems.map((problem) => {
    const where = [
      problem.run === null ? null : `run ${problem.run}`,
      problem.seq === null ? null : `seq ${problem.seq}`,
    ].filter((part) => part !== null);
    return `  ${problem.problem}${where.length === 0 ? "" : ` (${where.join(", ")})`}: ${problem.message}`;
  });
}
