import { readFileSync } from "node:fs";
import { isLeashError } from "../../errors/leash-error.js";
import { readAudit } from "../../audit/read-audit.js";
import { verifyAudit } from "../../audit/verify-audit.js";
import type { AuditRecord } from "../../audit/audit-record.js";
import { CliError } from "../cli-error.js";
import { headsWith } from "./parse-head.js";
import type { TrailProblem, TrailReport } from "./trail-report.js";

/** The values of a JSONL trail's lines, read without giving up at the first line that is not JSON. */
interface LenientTrail {
  values: unknown[];
  problems: TrailProblem[];
}

/**
 * Reads every line that parses as JSON, and names each that does not: `torn` for a last line with no
 * line end (a crash while it was written), `corrupt` for any other. `readAudit` stops at the first bad
 * line; this goes on, so that one bad line does not hide a changed record after it.
 */
function readLeniently(path: string): LenientTrail {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const values: unknown[] = [];
  const problems: TrailProblem[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      const torn = index === lines.length - 1;
      problems.push({
        run: null,
        seq: null,
        problem: torn ? "torn" : "corrupt",
        line: index + 1,
        message: torn
          ? `The last line (${index + 1}) was cut short, likely by a crash while it was written: ${(error as Error).message}.`
          : `Line ${index + 1} is not JSON: ${(error as Error).message}.`,
      });
    }
  });
  return { values, problems };
}

/** What a JSONL trail holds: its records (or what was read of them) and the lines that could not be read. */
interface ReadTrail {
  records: readonly AuditRecord[];
  problems: TrailProblem[];
}

/**
 * Reads a JSONL trail as far as it can be read: every record, and every line that is not one named as
 * a problem. A missing file is `trail_not_found`.
 */
export function readTrail(path: string): ReadTrail {
  let records: readonly AuditRecord[];
  const problems: TrailProblem[] = [];
  try {
    records = readAudit(path);
  } catch (error) {
    if (isLeashError(error, "audit_not_found")) throw new CliError("trail_not_found", `There is no trail at ${path}.`);
    if (!isLeashError(error, "audit_torn") && !isLeashError(error, "audit_corrupt")) throw error;
    const lenient = readLeniently(path);
    problems.push(...lenient.problems);
    const line = typeof error.details.line === "number" ? error.details.line : undefined;
    const unread: TrailProblem = {
      run: null,
      seq: null,
      problem: error.code === "audit_torn" ? "torn" : "corrupt",
      message: error.message,
      ...(line === undefined ? {} : { line }),
    };
    // verifyAudit checks every item itself and reports what is not a record as `malformed`; it never throws.
    records = lenient.values as AuditRecord[];
    // readAudit refused the file, so something is wrong even when the lenient reading found nothing
    // (a line that is not valid UTF-8): its own words say what.
    if (problems.length === 0) problems.push(unread);
  }
  return { records, problems };
}

/** Verifies a JSONL audit trail: every run's chain, and the head given with `--head`, if any. */
export function verifyJsonl(path: string, head: string | undefined, run: string | undefined): TrailReport {
  const { records, problems } = readTrail(path);
  const runs = [
    ...new Set(records.map((record) => (typeof record === "object" && record !== null ? String(record.run) : ""))),
  ].filter((name) => name !== "");
  const heads = headsWith({}, runs, head, run);
  problems.push(...verifyAudit(records, { heads }));
  // An empty file, or one in which no line is a run's record, holds no trail: it must not pass as
  // one that verifies (an empty trail has no chain to break).
  if (runs.length === 0) {
    problems.push({
      run: null,
      seq: null,
      problem: "not_a_trail",
      message: `${path} holds no audit record: it is empty, or not a leash trail.`,
    });
  }
  return { path, kind: "jsonl", records: records.length, runs: runs.length, heads, problems };
}
