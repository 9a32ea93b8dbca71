import { LeashError } from "../errors/leash-error.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "../stores/run-store.js";
import type { StoreLocation } from "./store-location.js";

/** Loads a run from a store, or fails with one line naming the run and the database. */
export async function findRun(store: RunStore, runId: string, location: StoreLocation): Promise<RunState> {
  const state = await store.load(runId);
  if (state === null)
    throw new LeashError(
      "run_not_found",
      `No run ${runId} in ${location.label}; \`leash runs ${location.args}\` lists them.`,
    );
  return state;
}
