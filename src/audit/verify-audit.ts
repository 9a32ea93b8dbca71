import { isDigest } from "../json/index.js";
import type { AuditHead, AuditRecord } from "./audit-record.js";
import { entryOf, malformed, newRecordFields, verifyRun, type Entry } from "./chain-walk.js";
import { safeMessage } from "./parse-audit-record.js";

export type { AuditProblem, AuditProblemKind } from "./audit-problem.js";
import type { AuditProblem } from "./audit-problem.js";

/** Options of {@link verifyAudit}. */
export interface VerifyAuditOptions {
  /**
   * Heads kept outside the trail (a saved state's `auditHead`, a signed checkpoint), by run id: the
   * trail must hold a record with each head's seq and digest, else the run is `truncated`. A chain alone
   * cannot show that its last records were cut off; a head kept elsewhere can.
   */
  heads?: Record<string, AuditHead>;
}

/**
 * Checks every run's hash chain in an interleaved trail and lists what is wrong: `[]` when every chain
 * holds. It never throws, whatever it is given; what it cannot read is reported as `malformed`.
 *
 * Within a run: a record whose digest does not match its content is `changed`; the first record must be
 * seq 0 with `prev: null` (`bad_start`); a gap is `missing` (naming the first missing seq); a record that
 * does not link to the one before is `broken_link`; a second record with a seq already seen is
 * `duplicate`; a record out of seq order in the trail is `reordered`. Each problem is reported once,
 * and the walk resynchronises after it, so one deletion gives one problem. With `heads`, a run whose
 * trail lacks its head record is `truncated`.
 *
 * What a plain chain cannot find: a writer who edits a record and recomputes every later digest, or a
 * trail cut after its last record (pass `heads` for that).
 *
 * @example
 * const problems = verifyAudit(readAudit("audit.jsonl"), { heads: { [state.runId]: state.auditHead } });
 * for (const { run, seq, message } of problems) console.log(run, seq, message);
 */
export function verifyAudit(records: Iterable<AuditRecord> | undefined, options?: VerifyAuditOptions): AuditProblem[] {
  const problems: AuditProblem[] = [];
  try {
    if (records === undefined) {
      // A sink that cannot read synchronously (PostgreSQL) has no `.records`: read it with `await sink.read()`.
      problems.push(
        malformed(null, null, "No records were given (a sink without `.records` is read with `await sink.read()`)."),
      );
      return problems;
    }
    const runs = collect(records, problems);
    for (const [run, entries] of runs) verifyRun(run, entries, problems);
    checkHeads(options, runs, problems);
  } catch (error) {
    problems.push(malformed(null, null, `The trail could not be verified: ${safeMessage(error)}.`));
  }
  return problems;
}

function collect(records: Iterable<AuditRecord>, problems: AuditProblem[]): Map<string, Entry[]> {
  const runs = new Map<string, Entry[]>();
  const input: unknown = records;
  if (
    typeof input !== "object" ||
    input === null ||
    typeof (input as Iterable<unknown>)[Symbol.iterator] !== "function"
  ) {
    problems.push(malformed(null, null, `Expected an iterable of audit records, but got ${describe(input)}.`));
    return runs;
  }
  let position = 0;
  const fields = newRecordFields();
  try {
    for (const item of input as Iterable<unknown>) {
      const read = entryOf(item, position, fields, problems);
      if (read !== null) add(runs, read.run, read.entry);
      position++;
    }
  } catch (error) {
    problems.push(malformed(null, null, `Reading the trail failed after ${position} records: ${safeMessage(error)}.`));
  }
  return runs;
}

function add(runs: Map<string, Entry[]>, run: string, entry: Entry): void {
  const entries = runs.get(run);
  if (entries === undefined) runs.set(run, [entry]);
  else entries.push(entry);
}

function checkHeads(
  options: VerifyAuditOptions | undefined,
  runs: Map<string, Entry[]>,
  problems: AuditProblem[],
): void {
  if (options === undefined || options === null) return;
  const heads: unknown = (options as { heads?: unknown }).heads;
  if (heads === undefined) return;
  if (typeof heads !== "object" || heads === null || Array.isArray(heads)) {
    problems.push(malformed(null, null, "Expected `heads` to be an object of heads (`{ seq, digest }`) by run id."));
    return;
  }
  for (const run of Object.keys(heads)) {
    const head: unknown = (heads as Record<string, unknown>)[run];
    const headSeq: unknown = typeof head === "object" && head !== null ? (head as { seq?: unknown }).seq : undefined;
    const digest: unknown =
      typeof head === "object" && head !== null ? (head as { digest?: unknown }).digest : undefined;
    if (typeof headSeq !== "number" || !Number.isSafeInteger(headSeq) || headSeq < 0 || !isDigest(digest)) {
      problems.push(malformed(run, null, `The head given for run ${JSON.stringify(run)} is not \`{ seq, digest }\`.`));
      continue;
    }
    const seq = headSeq;
    const entries = runs.get(run) ?? [];
    if (entries.some((entry) => entry.seq === seq && entry.digest === digest)) continue;
    const last = entries.reduce((most, entry) => Math.max(most, entry.seq), -1);
    const message =
      last < 0
        ? `the trail holds no record of run ${JSON.stringify(run)}, whose head is seq ${seq}`
        : last < seq
          ? `the trail of run ${JSON.stringify(run)} ends at seq ${last}, but its head is seq ${seq}: the records after it were cut`
          : `the trail of run ${JSON.stringify(run)} holds no record seq ${seq} with the head's digest`;
    problems.push({ run, seq, problem: "truncated", message: capitalize(message) + "." });
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  return typeof value === "object" ? "an object that is not iterable" : `a ${typeof value}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
