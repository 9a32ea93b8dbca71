import type { AuditRecord } from "../audit/audit-record.js";
import { canonicalOfJson } from "../json/index.js";

/** A record's `data` as an object to read fields from: `{}` when it is not one. */
export type Fields = Record<string, unknown>;

/** Names one disagreement of a saved state with its records: the step when it is a step's, the field, and what differs. */
export type Mismatch = (step: number | undefined, field: string, message: string) => void;

/** One record of a run, its data read as fields. */
export interface Fact {
  seq: number;
  event: string;
  data: Fields;
}

/**
 * What one run's records say, indexed for the check of its saved state: the records in seq order,
 * those of each step, and the last `run_ended`.
 */
export interface TrailFacts {
  all: Fact[];
  /**
   * The records that name a step (`data.step`), by step index, in seq order; the records of a limit
   * request (`data.kind: "limit"`) are left out: they are the run's, not the step's.
   */
  byStep: Map<number, Fact[]>;
  /** The first `run_started` record. */
  started: Fact | undefined;
  /** The last `run_ended` record. */
  ended: Fact | undefined;
}

function fieldsOf(value: unknown): Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

/**
 * The facts of one run's records: records of other runs, and values that are not records, are left
 * out, and the rest are taken in seq order (the chain's own check reports gaps and forks).
 */
export function trailFacts(runId: string, records: readonly unknown[]): TrailFacts {
  const all: Fact[] = [];
  for (const record of Array.isArray(records) ? records : []) {
    if (typeof record !== "object" || record === null) continue;
    const { run, seq, event, data } = record as Partial<AuditRecord>;
    if (run !== runId || typeof seq !== "number" || typeof event !== "string") continue;
    all.push({ seq, event, data: fieldsOf(data) });
  }
  all.sort((left, right) => left.seq - right.seq);
  const byStep = new Map<number, Fact[]>();
  for (const fact of all) {
    const step = fact.data.step;
    if (typeof step !== "number" || fact.data.kind === "limit") continue;
    const list = byStep.get(step);
    if (list === undefined) byStep.set(step, [fact]);
    else list.push(fact);
  }
  return {
    all,
    byStep,
    started: all.find((fact) => fact.event === "run_started"),
    ended: all.findLast((fact) => fact.event === "run_ended"),
  };
}

/**
 * Whether two values are the same JSON, compared by their canonical form (RFC 8785): key order and
 * number spelling do not count. `undefined` equals only `undefined`; a value that is not JSON equals
 * nothing.
 */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === undefined || right === undefined) return left === right;
  try {
    return canonicalOfJson(left) === canonicalOfJson(right);
  } catch {
    return false;
  }
}

/** A short, safe rendering of a value for a message: JSON, cut at 120 characters (and says so). */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "nothing" : (JSON.stringify(value) ?? typeof value);
  } catch {
    text = "a value that is not JSON";
  }
  return text.length > 120 ? `${text.slice(0, 120)}… (cut from ${text.length} characters)` : text;
}

/**
 * The fields of an `approval_requested` record as a request: one recorded before requests had kinds
 * (a version-1 trail) was a call's, which the saved form now says with `kind: "call"`.
 */
export function requestAsRecorded(data: Record<string, unknown>): Record<string, unknown> {
  return data.kind === undefined ? { kind: "call", ...data } : data;
}
