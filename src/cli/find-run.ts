import type { RunState, RunStore } from "../index.js";
import { CliError } from "./cli-error.js";

/** Loads a run from a store, or fails with one line naming the run and the database. */
export async function findRun(store: RunStore, runId: string, db: string): Promise<RunState> {
  const state = await store.load(runId);
  if (state === null)
    throw new CliError("run_not_found", `No run ${runId} in ${db}; \`leash runs --db ${db}\` lists them.`);
  return state;
}
