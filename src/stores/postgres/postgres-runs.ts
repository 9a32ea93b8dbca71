import { StateError } from "../../errors/index.js";
import { RunState } from "../../state/run-state.js";
import { prefixEnd } from "../list-runs.js";
import type { ListOptions } from "../run-store.js";
import type { StepWrites } from "../written-steps.js";
import type { PostgresClient, PostgresQueryResult } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** What a create or a save writes to the run tables, turned into text when the call began. */
interface RunRows {
  runId: string;
  status: string;
  revision: number;
  answerCount: number;
  /** The saved form without its steps. */
  header: string;
  /** How many steps the state has. */
  stepCount: number;
  /** The steps to write, by index, and their saved forms. */
  indexes: number[];
  texts: string[];
  /** Whether rows past the last step are to be deleted (see {@link StepWrites}). */
  full: boolean;
}

/**
 * Turns what a save writes into text at once, before anything is awaited: the rows then hold the
 * state as it was when the save was called, and so does what the store remembers of them.
 */
export function runRows(state: RunState, writes: StepWrites): RunRows {
  const indexes: number[] = [];
  const texts: string[] = [];
  for (let index = writes.from; index < state.steps.length; index++) {
    indexes.push(index);
    texts.push(state.stepText(index));
  }
  const { runId, status, revision } = state;
  return {
    runId,
    status,
    revision,
    answerCount: state.answers.length,
    header: state.headerText(),
    stepCount: state.steps.length,
    indexes,
    texts,
    full: writes.full,
  };
}

/** Rows past the last step can only be left by a writer this store object does not know of; a full write deletes them. */
async function deleteStepsPast(client: PostgresClient, tables: PostgresTables, rows: RunRows): Promise<void> {
  if (rows.full)
    await client.query(`DELETE FROM ${tables.steps} WHERE run_id = $1 AND step_index >= $2`, [
      rows.runId,
      rows.stepCount,
    ]);
}

/**
 * Inserts a new run's header and steps in the caller's transaction; false when the run id is taken
 * (and then nothing was written).
 */
export async function insertRun(client: PostgresClient, tables: PostgresTables, rows: RunRows): Promise<boolean> {
  const inserted = await client.query(
    `INSERT INTO ${tables.runs} (run_id, status, revision, answer_count, state) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO NOTHING`,
    [rows.runId, rows.status, rows.revision, rows.answerCount, rows.header],
  );
  if (inserted.rowCount !== 1) return false;
  await deleteStepsPast(client, tables, rows);
  if (rows.indexes.length > 0) {
    await client.query(
      `INSERT INTO ${tables.steps} (run_id, step_index, step)
       SELECT $1, step_index, step FROM unnest($2::integer[], $3::text[]) AS batch (step_index, step)
       ON CONFLICT (run_id, step_index) DO UPDATE SET step = excluded.step`,
      [rows.runId, rows.indexes, rows.texts],
    );
  }
  return true;
}

/**
 * The compare-and-set of a save, in the caller's transaction: writes the header and the steps if the
 * run is still at `expectedRevision`, else refuses with `stale_state` (another process moved the run)
 * or `run_not_found`, having written nothing.
 */
export async function updateRun(
  client: PostgresClient,
  tables: PostgresTables,
  rows: RunRows,
  expectedRevision: number,
): Promise<void> {
  const { runId } = rows;
  // One statement, one round trip: the steps are written only through the run row the UPDATE
  // changed, so a refused compare-and-set writes none. Under READ COMMITTED a concurrent save that
  // committed first makes the UPDATE re-check its WHERE on the new row, find another revision and
  // change nothing: the compare-and-set holds without serialization failures.
  const updated = await client.query(
    `WITH updated AS (
       UPDATE ${tables.runs} SET revision = $3, status = $4, answer_count = $5, state = $6, updated_at = clock_timestamp()
       WHERE run_id = $1 AND revision = $2
       RETURNING run_id
     ), written AS (
       INSERT INTO ${tables.steps} (run_id, step_index, step)
       SELECT updated.run_id, batch.step_index, batch.step FROM updated, unnest($7::integer[], $8::text[]) AS batch (step_index, step)
       ON CONFLICT (run_id, step_index) DO UPDATE SET step = excluded.step
     )
     SELECT count(*)::integer AS updated FROM updated`,
    [runId, expectedRevision, rows.revision, rows.status, rows.answerCount, rows.header, rows.indexes, rows.texts],
  );
  if (Number(updated.rows[0]?.updated) !== 1) {
    const found = await client.query(`SELECT revision FROM ${tables.runs} WHERE run_id = $1`, [runId]);
    const row = found.rows[0];
    if (row === undefined)
      throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
    const stored = Number(row.revision);
    throw new StateError(
      "stale_state",
      `Run \`${runId}\` is at revision ${stored}, not ${expectedRevision}: another process moved it.`,
      {
        details: { runId, stored, expected: expectedRevision },
      },
    );
  }
  await deleteStepsPast(client, tables, rows);
}

/**
 * The SELECT that gives each run's header and its steps in order, as one statement: one snapshot,
 * so that a save committed in between cannot mix two revisions of a run.
 */
export function selectRuns(tables: PostgresTables, where: string): string {
  return `SELECT runs.run_id, runs.state,
            coalesce((SELECT array_agg(steps.step ORDER BY steps.step_index) FROM ${tables.steps} AS steps WHERE steps.run_id = runs.run_id), '{}') AS steps
          FROM ${tables.runs} AS runs ${where} ORDER BY runs.position`;
}

/**
 * The WHERE clause of a listing and its values: a status, and a prefix of run ids as a range with the
 * byte-order operators (`~>=~`, `~<~`, answered by the `text_pattern_ops` index on run ids whatever
 * the database's collation) plus `starts_with`, which is exact: no character of the prefix is a
 * wildcard, as it would be in LIKE.
 */
export function listFilter(options: ListOptions): { where: string; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  if (options.status !== undefined) {
    values.push(options.status);
    conditions.push(`runs.status = $${values.length}`);
  }
  const prefix = options.runIdPrefix;
  if (prefix !== undefined && prefix !== "") {
    values.push(prefix);
    const at = values.length;
    conditions.push(`runs.run_id ~>=~ $${at}`, `starts_with(runs.run_id, $${at})`);
    const end = prefixEnd(prefix);
    if (end !== undefined) {
      values.push(end);
      conditions.push(`runs.run_id ~<~ $${values.length}`);
    }
  }
  return { where: conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`, values };
}

/** Puts a run read by {@link selectRuns} back together, checked by `RunState.fromParts`, never cast. */
export function assembleRun(row: PostgresQueryResult["rows"][number]): RunState {
  const steps: unknown = row.steps;
  if (!Array.isArray(steps)) throw new StateError("invalid_state", "The stored steps of a run are not a list.");
  return RunState.fromParts(String(row.state), steps);
}
