import type { AuditHead } from "../../audit/audit-record.js";
import type { AuditProblem } from "../../audit/audit-problem.js";

/**
 * A problem of a trail as `leash verify` reports it: one of `verifyAudit`'s, a line of a JSONL file
 * that could not be read at all (`torn`: the last line cut short by a crash; `corrupt`: any other), a
 * stored run whose state cannot be read (`unreadable_state`), a stored run whose saved state says
 * what its records do not (`state_mismatch`, with the step and the field), or a file that holds no
 * trail at all (`not_a_trail`: empty, or no line of it a record).
 */
export interface TrailProblem {
  run: string | null;
  seq: number | null;
  problem: AuditProblem["problem"] | "torn" | "corrupt" | "unreadable_state" | "state_mismatch" | "not_a_trail";
  message: string;
  /** For a `state_mismatch`: the step it is in, when it is a step's. */
  step?: number;
  /** For a `state_mismatch`: the part of the state that disagrees (`arguments`, `result`, `usage`, ...). */
  field?: string;
  /** The line of the JSONL file, for `torn` and `corrupt`. */
  line?: number;
}

/** What `leash verify` found in a trail. */
export interface TrailReport {
  path: string;
  kind: "jsonl" | "sqlite" | "postgres";
  records: number;
  runs: number;
  /** The heads the trail was checked against, by run: states' `auditHead`s and `--head`. */
  heads: Record<string, AuditHead>;
  problems: TrailProblem[];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The lines `leash verify` prints: what was checked, then every problem (run, seq, problem). */
export function reportLines(report: TrailReport): string[] {
  const what = report.kind === "jsonl" ? "the JSONL trail" : "the trail of the store";
  const heads = Object.keys(report.heads).length;
  const against = heads === 0 ? "" : `, against ${plural(heads, "head")} kept outside the chain`;
  const lines = [
    `Checked ${what} ${report.path}: ${plural(report.records, "record")} of ${plural(report.runs, "run")}${against}.`,
  ];
  if (report.problems.length === 0) {
    lines.push(heads === 0 ? "Every chain holds." : "Every chain holds, and holds its head.");
    if (report.kind !== "jsonl") lines.push("Every run's saved state agrees with its records.");
    return lines;
  }
  lines.push(`${plural(report.problems.length, "problem")}:`);
  for (const problem of report.problems) {
    const where = [
      problem.run === null ? null : `run ${problem.run}`,
      problem.seq === null ? null : `seq ${problem.seq}`,
      problem.step === undefined ? null : `step ${problem.step}`,
      problem.field === undefined ? null : `field ${problem.field}`,
      problem.line === undefined ? null : `line ${problem.line}`,
    ].filter((part) => part !== null);
    lines.push(`  ${problem.problem}${where.length === 0 ? "" : ` (${where.join(", ")})`}: ${problem.message}`);
  }
  return lines;
}
