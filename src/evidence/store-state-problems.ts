import type { AuditRecord } from "../audit/audit-record.js";
import { isLeashError, messageOf } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import { stateAgreesWithTrail } from "../state/state-agrees-with-trail.js";
import { statePages } from "../state/state-pages.js";
import type { PagedStates } from "../state/state-pages.js";

/** A store's runs and records, as far as the check of its saved states needs them. */
interface StatesAndRecords extends PagedStates {
  read(runId?: string): Promise<AuditRecord[]>;
}

/** One saved state that disagrees with its run's records, as a checkpoint's check reports it. */
export interface StoredStateProblem {
  problem: "state_mismatch";
  message: string;
  run: string;
  step?: number;
  field: string;
}

/** How many runs a page of the check holds: memory stays flat in the number of runs. */
const PAGE = 500;

/** Whether a log's source is a store that keeps run states beside its records. */
function holdsStates(source: unknown): source is StatesAndRecords {
  if (typeof source !== "object" || source === null) return false;
  const store = source as Partial<StatesAndRecords>;
  return typeof store.list === "function" && typeof store.read === "function";
}

/**
 * The `state_mismatch`es of a store: every stored run's saved state checked against its records
 * ({@link stateAgreesWithTrail}); a state that cannot be read back is one too, since what it holds
 * is covered by nothing. `[]` for a source that keeps no states (a JSONL trail, a log, a sink). The
 * runs are read a page at a time ({@link statePages}), and each run's records by run, so that only a page of states and
 * one run's records are held at once.
 */
export async function storeStateProblems(
  source: unknown,
  runIds?: (after: string | null, limit: number) => Promise<string[]>,
): Promise<StoredStateProblem[]> {
  if (!holdsStates(source)) return [];
  if (runIds !== undefined && typeof (source as { load?: unknown }).load === "function") {
    return loadedStateProblems(source as StatesAndRecords & Loader, runIds);
  }
  const problems: StoredStateProblem[] = [];
  const unreadable = new Set<string>();
  const onUnreadable = ({ runId, error }: { runId: string; error: Error }): void => {
    if (unreadable.has(runId)) return;
    unreadable.add(runId);
    problems.push(unreadableProblem(runId, error));
  };
  for await (const states of statePages(source, { onUnreadable }, PAGE)) await checkStates(source, states, problems);
  return problems;
}

/** A store that loads one run's state. */
interface Loader {
  load(runId: string): Promise<RunState | null>;
}

/** The check of {@link storeStateProblems} over the store's run ids, a page at a time, each run loaded alone. */
async function loadedStateProblems(
  source: StatesAndRecords & Loader,
  runIds: (after: string | null, limit: number) => Promise<string[]>,
): Promise<StoredStateProblem[]> {
  const problems: StoredStateProblem[] = [];
  for (let after: string | null = null; ;) {
    const ids = await runIds(after, PAGE);
    const states: RunState[] = [];
    for (const runId of ids) {
      try {
        const state = await source.load(runId);
        if (state !== null) states.push(state);
      } catch (error) {
        // As a listing does: a state its parser refuses is reported, the database's own error is thrown.
        if (!isLeashError(error) && !(error instanceof RangeError)) throw error;
        if (isLeashError(error, "store_failed") || isLeashError(error, "store_busy")) throw error;
        problems.push(unreadableProblem(runId, error));
      }
    }
    await checkStates(source, states, problems);
    if (ids.length < PAGE) return problems;
    after = ids.at(-1)!;
  }
}

/** Each state against its own run's records, read by run. */
async function checkStates(source: StatesAndRecords, states: readonly RunState[], problems: StoredStateProblem[]) {
  for (const state of states) {
    const records = await source.read(state.runId);
    for (const { run, step, field, message } of stateAgreesWithTrail(state, records).problems) {
      problems.push({ problem: "state_mismatch", message, run, field, ...(step === undefined ? {} : { step }) });
    }
  }
}

/** A state that cannot be read back: nothing of it is covered. */
function unreadableProblem(runId: string, error: Error): StoredStateProblem {
  return {
    problem: "state_mismatch",
    run: runId,
    field: "state",
    message: `The saved state of run ${JSON.stringify(runId)} cannot be read, so nothing of it is covered: ${messageOf(error)}`,
  };
}
