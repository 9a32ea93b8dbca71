import type { RunState, RunStateJson } from "../state/run-state.js";

/** What a run said and ran, read from its state alone. */
export interface Trace {
  /** Guards' lines, in the order said, e.g. "Shop rules stopped NoteRepair: A note does not blame the customer." */
  said: string[];
  /** The tools whose calls started, in order. */
  ran: string[];
}

/**
 * The trace of a run: the guards' lines and the tools that ran, kept in the saved state so a trace
 * can be read from any copy of it.
 *
 * @example assert.deepEqual(trace(outcome.state).ran, ["WhereIsTheKey", "NoteRepair"]);
 */
export function trace(state: RunState | RunStateJson): Trace {
  return { said: [...state.said], ran: [...state.ran] };
}
