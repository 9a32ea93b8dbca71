import type { Database, Statement } from "better-sqlite3";
import { StateError } from "../../errors/index.js";
import { RunState } from "../../state/run-state.js";
import { readEach } from "../list-runs.js";
import type { UnreadableRun } from "../run-store.js";
import type { StepWrites } from "../written-steps.js";

interface RunRow {
  run_id: string;
  state: string;
}

/**
 * The `runs` and `steps` tables of a {@link SqliteStore}: a run is a row holding its saved form without
 * its steps (the header) and a row per step. Writes run inside the caller's transaction; reads put a
 * run back together with `RunState.fromParts`, which checks it, never casts it.
 */
export class SqliteRuns {
  readonly #exists: Statement<[string], unknown>;
  readonly #revisionOf: Statement<[string], { revision: number }>;
  readonly #insert: Statement<[string, string, number, string, string], unknown>;
  readonly #update: Statement<[string, number, string, string, string, number], unknown>;
  readonly #upsertStep: Statement<[string, number, string], unknown>;
  readonly #deleteStepsFrom: Statement<[string, number], unknown>;
  readonly #header: Statement<[string], RunRow>;
  readonly #steps: Statement<[string], { step: string }>;
  readonly #all: Statement<[], RunRow>;
  readonly #byStatus: Statement<[string], RunRow>;
  // Reads of a header and its steps run in one (deferred) transaction: one snapshot of the file, so
  // that a save committed by another process between the two reads cannot mix two revisions.
  readonly #load: (runId: string) => RunState | null;
  readonly #list: (status: string | undefined) => { states: RunState[]; unreadable: UnreadableRun[] };

  constructor(database: Database) {
    this.#exists = database.prepare("SELECT 1 FROM runs WHERE run_id = ?");
    this.#revisionOf = database.prepare("SELECT revision FROM runs WHERE run_id = ?");
    this.#insert = database.prepare(
      "INSERT INTO runs (run_id, position, status, revision, state, updated_at) VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM runs), ?, ?, ?, ?)",
    );
    this.#update = database.prepare(
      "UPDATE runs SET status = ?, revision = ?, state = ?, updated_at = ? WHERE run_id = ? AND revision = ?",
    );
    this.#upsertStep = database.prepare(
      "INSERT INTO steps (run_id, step_index, step) VALUES (?, ?, ?) ON CONFLICT (run_id, step_index) DO UPDATE SET step = excluded.step",
    );
    this.#deleteStepsFrom = database.prepare("DELETE FROM steps WHERE run_id = ? AND step_index >= ?");
    this.#header = database.prepare("SELECT run_id, state FROM runs WHERE run_id = ?");
    this.#steps = database.prepare("SELECT step FROM steps WHERE run_id = ? ORDER BY step_index");
    this.#all = database.prepare("SELECT run_id, state FROM runs ORDER BY position");
    this.#byStatus = database.prepare("SELECT run_id, state FROM runs WHERE status = ? ORDER BY position");
    this.#load = database.transaction((runId: string) => {
      const row = this.#header.get(runId);
      return row === undefined ? null : this.#assemble(row);
    });
    this.#list = database.transaction((status: string | undefined) => {
      const rows = status === undefined ? this.#all.all() : this.#byStatus.all(status);
      return readEach(
        rows,
        (row) => row.run_id,
        (row) => this.#assemble(row),
      );
    });
  }

  /** Whether a run is stored. */
  holds(runId: string): boolean {
    return this.#exists.get(runId) !== undefined;
  }

  /** Inserts a new run, its header and the steps `writes` names (every step), inside the caller's transaction. */
  insert(state: RunState, writes: StepWrites): void {
    this.#insert.run(state.runId, state.status, state.revision, state.headerText(), state.updatedAt);
    this.#writeSteps(state, writes);
  }

  /**
   * The compare-and-set of a save, inside the caller's (immediate) transaction: writes the header if
   * the run is still at `expectedRevision`, then the steps `writes` names, so that a refused save
   * writes no step. Refuses with `stale_state` (another process moved the run) or `run_not_found`.
   */
  update(state: RunState, expectedRevision: number, writes: StepWrites): void {
    const { runId } = state;
    const changed = this.#update.run(
      state.status,
      state.revision,
      state.headerText(),
      state.updatedAt,
      runId,
      expectedRevision,
    );
    if (changed.changes === 0) {
      const stored = this.#revisionOf.get(runId);
      if (stored === undefined)
        throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
      throw new StateError(
        "stale_state",
        `Run \`${runId}\` is at revision ${stored.revision}, not ${expectedRevision}: another process moved it.`,
        { details: { runId, stored: stored.revision, expected: expectedRevision } },
      );
    }
    this.#writeSteps(state, writes);
  }

  /** A stored run put back together, or `null`. */
  load(runId: string): RunState | null {
    return this.#load(runId);
  }

  /**
   * The stored runs in the order they were created, optionally only those of a status, and those
   * whose state cannot be read (left out of the list).
   */
  list(status: string | undefined): { states: RunState[]; unreadable: UnreadableRun[] } {
    return this.#list(status);
  }

  #assemble(row: RunRow): RunState {
    const steps = this.#steps.all(row.run_id).map((step) => step.step);
    return RunState.fromParts(row.state, steps);
  }

  #writeSteps(state: RunState, writes: StepWrites): void {
    const { runId } = state;
    // Rows past the last step can only be left by a writer this store object does not know of; a
    // full write deletes them so the rows are exactly the state's steps.
    if (writes.full) this.#deleteStepsFrom.run(runId, state.steps.length);
    for (let index = writes.from; index < state.steps.length; index++)
      this.#upsertStep.run(runId, index, state.stepText(index));
  }
}
