import type { AuditRecord } from "../audit/audit-record.js";
import { messageOf } from "../errors/index.js";
import type { RunStore } from "../stores/run-store.js";
import { statePages } from "../stores/state-pages.js";
import { stateAgreesWithTrail } from "../state/state-agrees-with-trail.js";

/** A store's runs and records, as far as the check of its saved states needs them. */
type StatesAndRecords = Pick<RunStore, "list" | "summaries"> & { read(runId?: string): Promise<AuditRecord[]> };

/** One saved state that disagrees with its run's records, as a checkpoint's check reports it. */
export interface StoredStateProblem {
  problem: "state_mismatch";
  message: string;
  run: string;
  step?: number;
  field: string;
}

/** Whether a log's source is a store that keeps run states beside its records. */
function holdsStates(source: unknown): source is StatesAndRecords {
  if (typeof source !== "object" || source === null) return false;
  const store = source as Partial<StatesAndRecords>;
  return typeof store.list === "function" && typeof store.read === "function";
}

/**
 * The `state_mismatch`es of a store: every stored run's saved state checked against its records
 * ({@link stateAgreesWithTrail}); a state that cannot be read back is one too, since what it holds
 * is covered by nothing. `[]` for a source that keeps no states (a JSONL trail, a log, a sink).
 */
export async function storeStateProblems(source: unknown): Promise<StoredStateProblem[]> {
  if (!holdsStates(source)) return [];
  const problems: StoredStateProblem[] = [];
  const onUnreadable = ({ runId, error }: { runId: string; error: Error }) => {
    problems.push({
      problem: "state_mismatch",
      run: runId,
      field: "state",
      message: `The saved state of run ${JSON.stringify(runId)} cannot be read, so nothing of it is covered: ${messageOf(error)}`,
    });
  };
  // A page of states at a time, each run's records read after its state (a trail ahead of a state
  // is no mismatch): memory holds one page of states and one run's records, not the store.
  for await (const states of statePages(source, { onUnreadable })) {
    for (const state of states) {
      const records = await source.read(state.runId);
      for (const { run, step, field, message } of stateAgreesWithTrail(state, records).problems) {
        problems.push({ problem: "state_mismatch", message, run, field, ...(step === undefined ? {} : { step }) });
      }
    }
  }
  return problems;
}
