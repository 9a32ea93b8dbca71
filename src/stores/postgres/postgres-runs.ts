import type { AuditRecord } from "../../audit/audit-record.js";
import { StateError } from "../../errors/index.js";
import { eventsText } from "./postgres-outbox-events.js";
import { summaryText } from "../run-summary.js";
import { RunState } from "../../state/run-state.js";
import { prefixEnd } from "../list-runs.js";
import type { ListOptions } from "../run-store.js";
import type { StepWrites } from "../written-steps.js";
import type { PostgresQueryResult } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** What a create or a save writes to the run tables, turned into text when the call began. */
export interface RunRows {
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
  /** The run's summary without its change number (see `summaryText`). */
  summary: string;
  /** The state's `updatedAt`, the key of the `updated_desc` order. */
  updatedKey: string;
  /** The outbox events the write makes true, as JSON text (see `eventsText`); `null` for none. */
  events: string | null;
}

/**
 * Turns what a save writes into text at once, before anything is awaited: the rows then hold the
 * state as it was when the save was called, and so does what the store remembers of them.
 */
export function runRows(state: RunState, writes: StepWrites, records: readonly AuditRecord[] = []): RunRows {
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
    summary: summaryText(state),
    updatedKey: state.updatedAt,
    events: eventsText(state, records),
  };
}

/**
 * The columns that give each run's id, header and steps in order, in one statement: one snapshot,
 * so that a save committed in between cannot mix two revisions of a run. For `FROM ... AS runs`.
 */
export function runColumns(tables: PostgresTables): string {
  return `runs.run_id, runs.state,
            coalesce((SELECT array_agg(steps.step ORDER BY steps.step_index) FROM ${tables.steps} AS steps WHERE steps.run_id = runs.run_id), '{}') AS steps`;
}

/** The SELECT of {@link runColumns} over the runs that `where` keeps, in the order they were created. */
export function selectRuns(tables: PostgresTables, where: string): string {
  return `SELECT ${runColumns(tables)} FROM ${tables.runs} AS runs ${where} ORDER BY runs.position`;
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
  // The runs awaiting a person: paused for approval, or gate sessions (`running`) whose summary
  // counts a waiting request. The summary is JSON as `JSON.stringify` writes it (no spaces), so
  // `"waiting":` then a digit from 1 is the key itself and a count of at least one: inside a string
  // every quote is escaped, and no string but a key precedes a colon. Each branch names its status,
  // so the status index answers both.
  if (options.awaitingPerson === true)
    conditions.push(
      `(runs.status = 'awaiting_approval' OR (runs.status = 'running' AND runs.summary ~ '"waiting":[1-9]'))`,
    );
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
