import type { AuditRecord, AuditSink, RunState, RunStore } from "../index.js";

/** A piece of work whose every attempt failed: what a person must look at, since no retry is left. */
export interface GaveUpWork {
  /** The run of its last attempt, whose trail holds the `gave_up` record. */
  runId: string;
  skill: string | null;
  goal: string;
  /** How many attempts were made, the last included. */
  attempts: number;
  /** Why the last attempt failed. */
  problem: { code: string; message: string };
  /** When it gave up: the `gave_up` record's time. */
  endedAt: string;
}

/** The `gave_up` record of a run's trail, the last one if there were several. */
function gaveUpRecord(records: readonly AuditRecord[]): AuditRecord | undefined {
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (record?.event === "gave_up") return record;
  }
  return undefined;
}

function workOf(state: RunState, record: AuditRecord): GaveUpWork {
  const data = (typeof record.data === "object" && record.data !== null ? record.data : {}) as {
    attempts?: unknown;
    problem?: unknown;
  };
  const attempts = typeof data.attempts === "number" ? data.attempts : state.attempt;
  const message = state.failure?.message ?? (typeof data.problem === "string" ? data.problem : "the work gave up");
  return {
    runId: state.runId,
    skill: state.skill ?? null,
    goal: state.goal,
    attempts,
    problem: { code: state.failure?.code ?? "unknown", message },
    endedAt: record.at,
  };
}

/**
 * The work that gave up (its last attempt's run, whose trail holds the `gave_up` record), newest
 * first. Only the trails of failed runs are read, one run at a time, since only a failed run can
 * hold that record: never the whole trail of the store at once.
 */
export async function listGaveUp(store: RunStore & AuditSink): Promise<GaveUpWork[]> {
  // Stores list runs in the order they were created: reversed, the newest first, so that the stable
  // sort below keeps two that gave up within the same millisecond newest first too.
  const failed = (await store.list({ status: "failed" })).reverse();
  const work: GaveUpWork[] = [];
  for (const state of failed) {
    const record = gaveUpRecord(await store.read(state.runId));
    if (record !== undefined) work.push(workOf(state, record));
  }
  return work.sort((a, b) => (a.endedAt < b.endedAt ? 1 : a.endedAt > b.endedAt ? -1 : 0));
}
