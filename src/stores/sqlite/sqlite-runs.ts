import type { Database, Statement } from "better-sqlite3";
import { StateError } from "../../errors/index.js";
import { RunState } from "../../state/run-state.js";
import { listingQuery } from "./sqlite-list-query.js";
import type { ListingFilter, ListingQuery } from "./sqlite-list-query.js";
import type { RunWrite } from "./sqlite-run-write.js";

/** A run's header row, as a load or a listing of states reads it. @internal */
export interface RunRow {
  run_id: string;
  state: string;
}

/** The query of a listing of states, as `list()` runs it (see `listingQuery`). @internal */
export function listQuery(filter: Omit<ListingFilter, "status"> & { status?: string | undefined }): ListingQuery {
  return listingQuery(filter as ListingFilter, "run_id, state");
}

/**
 * The `runs` and `steps` tables of a {@link SqliteStore}: a run is a row holding its saved form without
 * its steps (the header) and a row per step. Writes run inside the caller's transaction; reads put a
 * run back together with `RunState.fromParts`, which checks it, never casts it.
 */
export class SqliteRuns {
  readonly #exists: Statement<[string], unknown>;
  readonly #revisionOf: Statement<[string], { revision: number }>;
  readonly #insert: Statement<[string, string, number, string, string, string, number], unknown>;
  readonly #update: Statement<[string, number, string, string, string, number, string, number], unknown>;
  readonly #upsertStep: Statement<[string, number, string], unknown>;
  readonly #deleteStepsFrom: Statement<[string, number], unknown>;
  readonly #header: Statement<[string], RunRow>;
  readonly #steps: Statement<[string], { step: string }>;
  // Reads of a header and its steps run in one (deferred) transaction: one snapshot of the file, so
  // that a save committed by another process between the two reads cannot mix two revisions.
  readonly #load: (runId: string) => RunState | null;

  constructor(database: Database) {
    this.#exists = database.prepare("SELECT 1 FROM runs WHERE run_id = ?");
    this.#revisionOf = database.prepare("SELECT revision FROM runs WHERE run_id = ?");
    this.#insert = database.prepare(
      "INSERT INTO runs (run_id, position, status, revision, state, updated_at, summary, change) VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM runs), ?, ?, ?, ?, ?, ?)",
    );
    this.#update = database.prepare(
      "UPDATE runs SET status = ?, revision = ?, state = ?, updated_at = ?, summary = ?, change = ? WHERE run_id = ? AND revision = ?",
    );
    this.#upsertStep = database.prepare(
      "INSERT INTO steps (run_id, step_index, step) VALUES (?, ?, ?) ON CONFLICT (run_id, step_index) DO UPDATE SET step = excluded.step",
    );
    this.#deleteStepsFrom = database.prepare("DELETE FROM steps WHERE run_id = ? AND step_index >= ?");
    this.#header = database.prepare("SELECT run_id, state FROM runs WHERE run_id = ?");
    this.#steps = database.prepare("SELECT step FROM steps WHERE run_id = ? ORDER BY step_index");
    this.#load = database.transaction((runId: string) => {
      const row = this.#header.get(runId);
      return row === undefined ? null : this.assemble(row);
    });
  }

  /** Whether a run is stored. */
  holds(runId: string): boolean {
    return this.#exists.get(runId) !== undefined;
  }

  /** Inserts a new run, its header, summary and every step, inside the caller's transaction, as changed at `change`. */
  insert(write: RunWrite, change: number): void {
    this.#insert.run(write.runId, write.status, write.revision, write.header, write.updatedAt, write.summary, change);
    this.#writeSteps(write);
  }

  /**
   * The compare-and-set of a save, inside the caller's (immediate) transaction: writes the header and
   * summary if the run is still at `expectedRevision`, then the steps the write holds, so that a
   * refused save writes no step. Refuses with `stale_state` (another process moved the run) or
   * `run_not_found`.
   */
  update(write: RunWrite, expectedRevision: number, change: number): void {
    const { runId } = write;
    const changed = this.#update.run(
      write.status,
      write.revision,
      write.header,
      write.updatedAt,
      write.summary,
      change,
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
    this.#writeSteps(write);
  }

  /** A stored run put back together, or `null`. */
  load(runId: string): RunState | null {
    return this.#load(runId);
  }

  /** A header row put back together with its steps and checked (`RunState.fromParts`). */
  assemble(row: RunRow): RunState {
    const steps = this.#steps.all(row.run_id).map((step) => step.step);
    return RunState.fromParts(row.state, steps);
  }

  #writeSteps(write: RunWrite): void {
    const { runId } = write;
    // Rows past the last step can only be left by a writer this store object does not know of; a
    // full write deletes them so the rows are exactly the state's steps.
    if (write.full) this.#deleteStepsFrom.run(runId, write.stepCount);
    write.steps.forEach((text, offset) => this.#upsertStep.run(runId, write.from + offset, text));
  }
}
