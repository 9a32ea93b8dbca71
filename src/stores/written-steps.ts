import type { RunState } from "../state/run-state.js";

/** What one store object knows of the step rows it last wrote for a run. */
interface Written {
  /** The revision it wrote. */
  revision: number;
  /** How many steps the state it wrote had. */
  steps: number;
  /** How many leading steps of that state had an outcome, and so will never change again. */
  settled: number;
}

/** Which step rows a save must write, as {@link WrittenSteps.plan} gives it. */
export interface StepWrites {
  /** The index of the first step to write: every step from it to the last is upserted. */
  from: number;
  /**
   * Whether the store's rows of the run are unknown to this store object, so that every step is
   * written and any row past the state's last step is deleted.
   */
  full: boolean;
  /** What to remember once the save has committed, taken from the state when the save began. */
  written: Written;
}

/**
 * How many runs a store object remembers. A run it forgot is written whole at its next save, which
 * is correct, only slower; the bound keeps a long-lived store from growing with every run it served.
 */
const REMEMBERED_RUNS = 1024;

/** The length of the leading run of steps that have an outcome, counting on from `known` of them. */
export function settledSteps(state: RunState, known: number): number {
  const { steps } = state;
  let count = Math.min(known, steps.length);
  for (; count < steps.length; count++) {
    const outcome = steps[count]?.outcome;
    if (outcome === null || outcome === undefined) break;
  }
  return count;
}

/**
 * What a store that keeps each step of a run as a row of its own has written, per store object, so
 * that a save writes only the steps that may have changed. A step whose `outcome` is set never
 * changes again, so once a save of revision R has written the steps, the next save, expecting R,
 * needs to write only the steps from the first one that had no outcome at R. The compare-and-set on
 * the revision, in the save's own transaction, is what makes this safe: a save planned from revision
 * R commits only if the run is still at R, that is, still holds the rows this object wrote. When
 * another process moved the run, or this object never wrote it, the save writes every step.
 */
export class WrittenSteps {
  readonly #runs = new Map<string, Written>();

  /**
   * Which steps a save of `state` that expects `expectedRevision` must write (`null` for a create,
   * which writes every step). Call it when the save begins, before anything is awaited, so that what
   * is remembered is what was written.
   */
  plan(state: RunState, expectedRevision: number | null): StepWrites {
    const known = this.#runs.get(state.runId);
    // A state with fewer steps than were written is not one the core makes; writing it whole keeps
    // the rows true to it all the same.
    const full = known === undefined || known.revision !== expectedRevision || state.steps.length < known.steps;
    const from = full ? 0 : known.settled;
    return {
      from,
      full,
      written: { revision: state.revision, steps: state.steps.length, settled: settledSteps(state, from) },
    };
  }

  /**
   * Notes that a save planned with `writes` has committed. Call it only then, so that a save that
   * failed leaves the old (still true) entry in place.
   */
  remember(runId: string, writes: StepWrites): void {
    const { written } = writes;
    const previous = this.#runs.get(runId);
    // Two saves of one run in flight at once may finish in either order: the later revision stands.
    if (previous !== undefined && previous.revision > written.revision) return;
    // Deleted and set again, so that the map's order is the order of use and the oldest is dropped.
    this.#runs.delete(runId);
    this.#runs.set(runId, written);
    if (this.#runs.size > REMEMBERED_RUNS) {
      const oldest = this.#runs.keys().next();
      if (oldest.done !== true) this.#runs.delete(oldest.value);
    }
  }

  /** Forgets a run, so that its next save writes every step. */
  forget(runId: string): void {
    this.#runs.delete(runId);
  }
}
