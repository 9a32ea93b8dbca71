import { LeashError } from "../../errors/index.js";
import type { RunState } from "../../state/run-state.js";
import { readEach, reportUnreadable } from "../list-runs.js";
import type { ListOptions } from "../run-store.js";
import { cursorAfter, readCursor } from "../run-summary.js";
import type { SummaryPage } from "../run-summary.js";
import type { PostgresPool } from "./postgres-pool.js";
import { queryOnce } from "./postgres-pool.js";
import { assembleRun, runColumns } from "./postgres-runs.js";
import { listingClauses, readSummary } from "./postgres-summaries.js";
import type { PostgresTables } from "./postgres-tables.js";

/**
 * A created-order cursor resumes after its run's place: a cursor whose run is not stored is refused
 * (`invalid_option`), as every store refuses it, instead of reading as the end. Asked only when a
 * page came back empty, since any run after the cursor proves its run is there.
 */
async function checkCursorRun(pool: PostgresPool, tables: PostgresTables, options: ListOptions): Promise<void> {
  const order = options.order ?? "created_asc";
  if (options.cursor === undefined || order === "updated_desc") return;
  const { runId } = readCursor(options.cursor, order);
  const found = await queryOnce(pool, "reading a cursor's run", `SELECT 1 FROM ${tables.runs} WHERE run_id = $1`, [
    runId,
  ]);
  if (found.rows.length === 0)
    throw new LeashError("invalid_option", `The cursor resumes after run \`${runId}\`, which is not in the store.`);
}

/**
 * The states of one listing (options already checked), by the same clauses as {@link listSummaries}:
 * the same runs in the same order. A run whose state cannot be read is left out and reported.
 */
export async function listStates(
  pool: PostgresPool,
  tables: PostgresTables,
  options: ListOptions,
): Promise<RunState[]> {
  const { clauses, values } = listingClauses(tables, options);
  const result = await queryOnce(pool, "listing runs", `SELECT ${runColumns(tables)} ${clauses}`, values);
  if (result.rows.length === 0) await checkCursorRun(pool, tables, options);
  const { states, unreadable } = readEach(
    result.rows,
    (row) => String(row.run_id),
    (row) => assembleRun(row),
  );
  reportUnreadable(options, unreadable);
  return states;
}

/**
 * One page of summaries (options already checked), read from the summary column through the index
 * of the order: no state is read or parsed. A run without a summary (its state could not be read
 * when the store filled in the summaries of older rows) is left out.
 */
export async function listSummaries(
  pool: PostgresPool,
  tables: PostgresTables,
  options: ListOptions,
): Promise<SummaryPage> {
  const { clauses, values } = listingClauses(tables, options);
  const result = await queryOnce(
    pool,
    "listing run summaries",
    `SELECT runs.run_id, runs.summary, runs.change_number ${clauses}`,
    values,
  );
  if (result.rows.length === 0) await checkCursorRun(pool, tables, options);
  const runs = result.rows
    .filter((row) => typeof row.summary === "string" && row.summary !== "")
    .map((row) => readSummary(row.summary, row.change_number, String(row.run_id)));
  const last = runs.at(-1);
  const full = options.limit !== undefined && result.rows.length === options.limit;
  return { runs, next: full && last !== undefined ? cursorAfter(last, options.order) : undefined };
}

/**
 * The store's change sequence, read by `leash_change_sequence()` once every create, save and answer
 * that took a lower number has committed: a watcher that lists `changedSince` the value it read
 * last never misses a change that committed late.
 */
export async function readChangeSequence(
  pool: PostgresPool,
  tables: PostgresTables,
  acquireMs: number,
): Promise<number> {
  const deadline = Date.now() + acquireMs;
  for (;;) {
    const result = await queryOnce(pool, "reading the change sequence", `SELECT ${tables.changeSequence}() AS change`);
    const value = result.rows[0]?.change;
    if (value !== null && value !== undefined) return Number(value);
    // Writers held the fence through the function's short wait: it is asked again after a pause,
    // in which the saves queued behind the wait go on.
    if (Date.now() > deadline)
      throw new LeashError(
        "store_busy",
        "PostgreSQL stayed busy while reading the change sequence: saves in flight held it past `timeouts.acquireMs` (try again).",
      );
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
  }
}
