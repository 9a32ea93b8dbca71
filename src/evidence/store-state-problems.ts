import type { AuditRecord } from "../audit/audit-record.js";
import { messageOf } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import { stateAgreesWithTrail } from "../state/state-agrees-with-trail.js";

/** A store's runs and records, as far as the check of its saved states needs them. */
interface StatesAndRecords {
  list(options: { onUnreadable: (problem: { runId: string; error: Error }) => void }): Promise<RunState[]>;
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
  const states = await source.list({
    onUnreadable: ({ runId, error }) => {
      problems.push({
        problem: "state_mismatch",
        run: runId,
        field: "state",
        message: `The saved state of run ${JSON.stringify(runId)} cannot be read, so nothing of it is covered: ${messageOf(error)}`,
      });
    },
  });
  const byRun = new Map<string, AuditRecord[]>();
  for (const record of await source.read()) {
    const list = byRun.get(record.run);
    if (list === undefined) byRun.set(record.run, [record]);
    else list.push(record);
  }
  for (const state of states) {
    for (const { run, step, field, message } of stateAgreesWithTrail(state, byRun.get(state.runId) ?? []).problems) {
      problems.push({ problem: "state_mismatch", message, run, field, ...(step === undefined ? {} : { step }) });
    }
  }
  return problems;
}
