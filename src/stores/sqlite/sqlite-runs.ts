import type { Database, Statement } from "better-sqlite3";
import { StateError } from "../../errors/index.js";
import { RunState } from "../../state/run-state.js";
import { prefixEnd, readEach } from "../list-runs.js";
import type { UnreadableRun } from "../run-store.js";
import type { StepWrites } from "../written-steps.js";

interface RunRow {
  run_id: string;
  state: string;
}

/** Which runs `list()` reads: of a status, and whose id starts with a prefix. */
interface RunFilter {
  status?: string | undefined;
  runIdPrefix?: string | undefined;
}

/**
 * The query of a listing and its values. A prefix of run ids is a range on the primary key's index
 * (BINARY: UTF-8 byte order, the order `prefixEnd` assumes); no LIKE or GLOB, so no character of the
 * prefix is a wildcard. @internal
 */
export function listQuery(filter: RunFilter): { sql: string; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  if (filter.status !== undefined) {
    conditions.push("status = ?");
    values.push(filter.status);
  }
  const prefix = filter.runIdPrefix;
  if (prefix !== undefined && prefix !== "") {
    conditions.push("run_id >= ?");
    values.push(prefix);
    const end = prefixEnd(prefix);
    if (end !== undefined) {
      conditions.push("run_id < ?");
      values.push(end);
    }
  }
  const where = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  return { sql: `SELECT run_id, state FROM runs${where} ORDER BY position`, values };
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
  readonly #database: Database;
  /** The listing statements, by their WHERE clause, prepared on first use. */
  readonly #selects = new Map<string, Statement<unknown[], RunRow>>();
  // Reads of a header and its steps run in one (deferred) transaction: one snapshot of the file, so
  // that a save committed by another process between the two reads cannot mix two revisions.
  readonly #load: (runId: string) => RunState | null;
  readonly #list: (filter: RunFilter) => { states: RunState[]; unreadable: UnreadableRun[] };

  constructor(database: Database) {
    this.#database = database;
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
    this.#load = database.transaction((runId: string) => {
      const row = this.#header.get(runId);
      return row === undefined ? null : this.#assemble(row);
    });
    this.#list = database.transaction((filter: RunFilter) => {
      const rows = this.#rows(filter);
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
  list(filter: RunFilter): { states: RunState[]; unreadable: UnreadableRun[] } {
    return this.#list(filter);
  }

  #rows(filter: RunFilter): RunRow[] {
    const { sql, values } = listQuery(filter);
    let select = this.#selects.get(sql);
    if (select === undefined) {
      select = this.#database.prepare<unknown[], RunRow>(sql);
      this.#selects.set(sql, select);
    }
    const rows = select.all(...values);
    const prefix = filter.runIdPrefix;
    // Exact whatever the prefix holds (a lone surrogate is not UTF-8, so the range alone could be off).
    return prefix === undefined ? rows : rows.filter((row) => row.run_id.startsWith(prefix));
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
