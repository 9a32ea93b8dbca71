import { verifyAudit } from "../index.js";
import type { AuditProblem, AuditRecord, RunState } from "../index.js";

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
}

/**
 * Checks a run's records against its state: the chain must hold, and it must hold the state's
 * `auditHead`, since a chain alone cannot show that its last records were cut off.
 */
export function checkRunTrail(state: RunState, records: readonly AuditRecord[]): TrailCheck {
  const head = state.auditHead;
  const problems = verifyAudit(records, head === null ? undefined : { heads: { [state.runId]: head } });
  if (head === null) return { records: records.length, problems, holdsHead: null, headIsLast: null };
  const holdsHead = records.some((record) => record.seq === head.seq && record.digest === head.digest);
  const last = records.at(-1);
  const headIsLast = last !== undefined && last.seq === head.seq && last.digest === head.digest;
  return { records: records.length, problems, holdsHead, headIsLast };
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
