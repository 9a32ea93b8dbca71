import { LeashError } from "../errors/leash-error.js";
import { cursorAfter } from "../state/run-summary.js";
import { listSummaries } from "../stores/list-summaries.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { RunStore } from "../stores/run-store.js";
import type { RunSummary } from "../state/run-summary.js";

/** A piece of work whose every attempt failed: what a person must look at, since no retry is left. */
export interface GaveUpWork {
  /** The run of its last attempt, whose trail holds the `gave_up` record. */
  runId: string;
  skill: string | null;
  /** The goal's first 200 characters and `…` when longer (see `goalShortened`); whole on the run's page. */
  goal: string;
  /** Whether `goal` was shortened. */
  goalShortened: boolean;
  /** How many attempts were made, the last included. */
  attempts: number;
  /** Why the last attempt failed. */
  problem: { code: string; message: string };
  /** When it gave up: the `gave_up` record's time. */
  endedAt: string;
  /** The person the work is for (the agent's `sponsor`), or `null`. */
  sponsor: string | null;
}

/** One page of the work that gave up, and where the next starts. */
export interface GaveUpListing {
  work: GaveUpWork[];
  /** The summary of each piece of work's last run, in the same order. */
  runs: RunSummary[];
  /** The cursor of the next page (a listing cursor of `updated_desc`), or `undefined` at the end. */
  next: string | undefined;
}

/** How many summaries of failed runs are read at a time while a page of work that gave up is filled. */
const SCAN_LIMIT = 200;

/** How many retried run ids a page remembers: past it they are forgotten (only a trail read is saved by them). */
const MAX_REMEMBERED = 10_000;

/** The `gave_up` record of a run's trail, the last one if there were several. */
function gaveUpRecord(records: readonly AuditRecord[]): AuditRecord | undefined {
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (record?.event === "gave_up") return record;
  }
  return undefined;
}

function workOf(run: RunSummary, record: AuditRecord): GaveUpWork {
  const data = (typeof record.data === "object" && record.data !== null ? record.data : {}) as {
    attempts?: unknown;
    problem?: unknown;
  };
  return {
    runId: run.runId,
    skill: run.skill ?? null,
    goal: run.goal,
    goalShortened: run.goalShortened,
    attempts: typeof data.attempts === "number" ? data.attempts : run.attempt,
    // The record carries the last attempt's failure message, so no run's state is read.
    problem: {
      code: run.failureCode ?? "unknown",
      message: typeof data.problem === "string" ? data.problem : "the work gave up",
    },
    endedAt: record.at,
    sponsor: run.sponsor ?? null,
  };
}

/** Which runs a scan keeps: all, only those sponsored by a person, or all but those. */
type Phase = { kind: "all" } | { kind: "sponsored" | "others"; sponsor: string };

function keeps(phase: Phase, run: RunSummary): boolean {
  if (phase.kind === "all") return true;
  return phase.kind === "sponsored" ? run.sponsor === phase.sponsor : run.sponsor !== phase.sponsor;
}

/**
 * A listing cursor of a two-part listing (a person's sponsored work, then the rest): `s_` or `o_`
 * before the cursor of the summaries of that part, `o_` alone for the start of the rest.
 */
function phaseOf(
  sponsor: string | undefined,
  cursor: string | undefined,
): { phase: Phase; cursor: string | undefined } {
  if (sponsor === undefined) return { phase: { kind: "all" }, cursor };
  if (cursor === undefined) return { phase: { kind: "sponsored", sponsor }, cursor: undefined };
  const part = cursor.startsWith("o_") ? "others" : cursor.startsWith("s_") ? "sponsored" : undefined;
  if (part === undefined) throw new LeashError("invalid_option", "The cursor is not one of this listing's.");
  const rest = cursor.slice(2);
  return { phase: { kind: part, sponsor }, cursor: rest === "" ? undefined : rest };
}

function cursorIn(phase: Phase, cursor: string): string {
  return phase.kind === "all" ? cursor : `${phase.kind === "sponsored" ? "s" : "o"}_${cursor}`;
}

/**
 * One page of the work that gave up (its last attempt's run, whose trail holds the `gave_up`
 * record), newest first (the `gave_up` note is that run's last save). It reads summaries of failed
 * runs, and the trails of only those that may have given up: a run of a skill (only a skill retries
 * and gives up) that no later failed attempt retried. `cursor` is a page's `next`. With `sponsor`
 * (the signed-in person), the work sponsored by them comes first, newest first, then the rest,
 * newest first: two scans, the cursor saying which one a page continues.
 */
export async function readGaveUp(
  store: RunStore & AuditSink,
  options: { limit: number; cursor?: string; sponsor?: string },
): Promise<GaveUpListing> {
  const start = phaseOf(options.sponsor, options.cursor);
  const first = await scanGaveUp(store, options.limit, start.phase, start.cursor);
  // A full page always has a `next`: a sponsored scan that ends short of the page is at its end.
  if (start.phase.kind !== "sponsored" || first.next !== undefined) return first;
  // The sponsored work ended inside this page: the rest fills it.
  const others: Phase = { kind: "others", sponsor: start.phase.sponsor };
  const rest = await scanGaveUp(store, options.limit - first.work.length, others, undefined);
  return { work: [...first.work, ...rest.work], runs: [...first.runs, ...rest.runs], next: rest.next };
}

/** One scan of {@link readGaveUp}: up to `limit` pieces of work of one phase, from a summaries cursor. */
async function scanGaveUp(
  store: RunStore & AuditSink,
  limit: number,
  phase: Phase,
  from: string | undefined,
): Promise<GaveUpListing> {
  const options = { limit };
  const work: GaveUpWork[] = [];
  const runs: RunSummary[] = [];
  // The runs a later failed attempt retried: they did not give up, their trails need no reading.
  const retried = new Set<string>();
  let cursor = from;
  for (;;) {
    const page = await listSummaries(store, {
      status: "failed",
      order: "updated_desc",
      limit: SCAN_LIMIT,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const run of page.runs) {
      if (retried.size >= MAX_REMEMBERED) retried.clear();
      if (run.retryOf !== undefined) retried.add(run.retryOf);
      if (run.skill === undefined || retried.has(run.runId) || !keeps(phase, run)) continue;
      const record = gaveUpRecord(await store.read(run.runId));
      if (record === undefined) continue;
      work.push(workOf(run, record));
      runs.push(run);
      // The page is full: the next one starts right after this run, in the order of the summaries.
      if (work.length === options.limit) return { work, runs, next: cursorIn(phase, cursorAfter(run, "updated_desc")) };
    }
    if (page.next === undefined) return { work, runs, next: undefined };
    cursor = page.next;
  }
}

/** Every piece of work that gave up, newest first; see {@link readGaveUp}. */
export async function listGaveUp(store: RunStore & AuditSink): Promise<GaveUpWork[]> {
  const work: GaveUpWork[] = [];
  let cursor: string | undefined;
  do {
    const page = await readGaveUp(store, { limit: SCAN_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
    work.push(...page.work);
    cursor = page.next;
  } while (cursor !== undefined);
  return work;
}
