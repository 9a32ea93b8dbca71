// Helpers shared by the audit tests: trails of several interleaved runs, a seeded PRNG, temporary files.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import assert from "node:assert/strict";
import { makeRecord, type AuditHead, type AuditRecord } from "../../src/audit/audit-record.js";
import type { AuditProblem } from "../../src/audit/verify-audit.js";

export { seededRandom } from "../../src/bench/seeded-random.js";

export const RUNS = ["alpha", "beta", "gamma"] as const;

/** The time of the n-th record, fixed so that trails are the same byte for byte on every run. */
export function timeOf(index: number): string {
  return new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + index * 1000).toISOString();
}

/** The data of the records of {@link interleavedTrail} unless told otherwise: a start, then tool results. */
function lookupData(run: string, step: number): unknown {
  return step === 0
    ? { nonce: `${run}-nonce-${step}`, goal: "Find the page about spans." }
    : {
        step,
        tool: "lookup",
        args: { topic: step % 2 === 0 ? "spans" : "ids" },
        result: { text: `page ${step}`, score: step / 8 },
      };
}

/**
 * A trail of several runs whose records interleave round-robin (alpha 0, beta 0, gamma 0, alpha 1, ...),
 * with data of several shapes (or the data `dataOf` gives for each run and step).
 */
export function interleavedTrail(
  runs: readonly string[] = RUNS,
  perRun = 6,
  dataOf: (run: string, step: number) => unknown = lookupData,
): AuditRecord[] {
  const heads = new Map<string, AuditHead>();
  const records: AuditRecord[] = [];
  for (let step = 0; step < perRun; step++) {
    for (const run of runs) {
      const data = dataOf(run, step);
      const record = makeRecord(
        run,
        heads.get(run) ?? null,
        step === 0 ? "run_started" : "tool_ended",
        data,
        timeOf(records.length),
      );
      heads.set(run, { seq: record.seq, digest: record.digest });
      records.push(record);
    }
  }
  return records;
}

/** A deep copy of records, to tamper with. */
export function copyOf(records: readonly AuditRecord[]): AuditRecord[] {
  return JSON.parse(JSON.stringify(records)) as AuditRecord[];
}

/** The position in the trail of a run's record with a given seq. */
export function positionOf(records: readonly AuditRecord[], run: string, seq: number): number {
  const position = records.findIndex((record) => record.run === run && record.seq === seq);
  assert.ok(position >= 0, `no record ${run}/${seq}`);
  return position;
}

/** The last record of a run, as a head kept elsewhere would name it. */
export function headOf(records: readonly AuditRecord[], run: string): AuditHead {
  const last = records.filter((record) => record.run === run).at(-1);
  assert.ok(last !== undefined);
  return { seq: last.seq, digest: last.digest };
}

/** The problems without their messages, for exact comparisons. */
export function kinds(problems: readonly AuditProblem[]): Array<Omit<AuditProblem, "message">> {
  return problems.map(({ run, seq, problem }) => ({ run, seq, problem }));
}

/** Asserts that every problem is well-formed: a known kind and a readable message naming the run. */
export function assertWellFormed(problems: readonly AuditProblem[]): void {
  const known = ["changed", "missing", "reordered", "duplicate", "broken_link", "bad_start", "malformed", "truncated"];
  for (const problem of problems) {
    assert.ok(known.includes(problem.problem), `unknown problem ${problem.problem}`);
    assert.equal(typeof problem.message, "string");
    assert.ok(problem.message.length > 10);
    if (problem.run !== null) assert.ok(problem.message.includes(JSON.stringify(problem.run)), problem.message);
  }
}

/** A fresh directory, removed when the test file ends. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "leash-audit-"));
  after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** The text of a JSONL trail holding these records, one line each, as JsonlAuditSink writes it. */
export function jsonlOf(records: readonly AuditRecord[]): string {
  return records.map((record) => JSON.stringify(record) + "\n").join("");
}
