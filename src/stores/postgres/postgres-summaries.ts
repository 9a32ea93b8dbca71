import { StateError } from "../../errors/index.js";
import type { ListOptions } from "../run-store.js";
import type { RunSummary } from "../run-summary.js";
import { readCursor } from "../run-summary.js";
import { listFilter } from "./postgres-runs.js";
import type { PostgresTables } from "./postgres-tables.js";

/**
 * Every field of a summary, in the order `summaryOf` gives them, so that one read back is the same
 * object; typed as a record of every key, so a field added to `RunSummary` must be added here.
 */
const FIELD_SET: Record<keyof RunSummary, true> = {
  runId: true,
  agent: true,
  status: true,
  goal: true,
  goalShortened: true,
  skill: true,
  principal: true,
  sponsor: true,
  attempt: true,
  retryOf: true,
  steps: true,
  toolCalls: true,
  interruptedSteps: true,
  pendingTool: true,
  pendingDigest: true,
  pendingQuorum: true,
  pendingGranted: true,
  gate: true,
  waiting: true,
  answers: true,
  stopReason: true,
  failureCode: true,
  cost: true,
  createdAt: true,
  updatedAt: true,
  revision: true,
  change: true,
};
const FIELDS = Object.keys(FIELD_SET) as (keyof RunSummary)[];

/**
 * Reads a stored summary back, with its change number, as the same object `summaryOf` gives (every
 * key present, `undefined` where the state had none); `invalid_state` when the text is not one.
 */
export function readSummary(text: unknown, change: unknown, runId: string): RunSummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(text));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new StateError("invalid_state", `The stored summary of run \`${runId}\` is not a summary.`, {
      details: { runId },
    });
  const stored = parsed as Record<string, unknown>;
  const summary: Record<string, unknown> = {};
  for (const field of FIELDS) summary[field] = field === "change" ? Number(change) : stored[field];
  // A summary written before gate sessions existed: no gate's, waiting on its one pending request if any.
  if (stored.gate === undefined) summary.gate = false;
  if (stored.waiting === undefined)
    summary.waiting = stored.status === "awaiting_approval" && stored.pendingDigest !== undefined ? 1 : 0;
  return summary as unknown as RunSummary;
}

/** The order of a listing as SQL, and the cursor's condition on the same key. */
function orderOf(
  tables: PostgresTables,
  options: ListOptions,
  values: unknown[],
): { order: string; after: string | undefined } {
  const order = options.order ?? "created_asc";
  const cursor = options.cursor === undefined ? undefined : readCursor(options.cursor, order);
  if (order === "updated_desc") {
    let after: string | undefined;
    if (cursor !== undefined) {
      values.push(cursor.key, cursor.runId);
      after = `(runs.updated_key, runs.run_id COLLATE "C") < ($${values.length - 1}::text COLLATE "C", $${values.length}::text COLLATE "C")`;
    }
    return { order: `runs.updated_key DESC, runs.run_id COLLATE "C" DESC`, after };
  }
  const descending = order === "created_desc";
  let after: string | undefined;
  if (cursor !== undefined) {
    // The created orders resume after the cursor run's position, looked up by its id.
    values.push(cursor.runId);
    after = `runs.position ${descending ? "<" : ">"} (SELECT position FROM ${tables.runs} WHERE run_id = $${values.length})`;
  }
  return { order: `runs.position ${descending ? "DESC" : "ASC"}`, after };
}

/**
 * The FROM, WHERE, ORDER BY and LIMIT of a listing, the same for `list()` and `summaries()`, so both
 * give the same runs in the same order: filters by status, id prefix and change number, the cursor as
 * a condition on the order's key, each answered by an index of schema version 5 (or 1 and 3).
 */
export function listingClauses(tables: PostgresTables, options: ListOptions): { clauses: string; values: unknown[] } {
  const filter = listFilter(options);
  const values: unknown[] = [...filter.values];
  const conditions = filter.where === "" ? [] : [filter.where.replace(/^WHERE /, "")];
  if (options.changedSince !== undefined) {
    values.push(options.changedSince);
    conditions.push(`runs.change_number > $${values.length}::bigint`);
  }
  const { order, after } = orderOf(tables, options, values);
  if (after !== undefined) conditions.push(after);
  let limit = "";
  if (options.limit !== undefined) {
    values.push(options.limit);
    limit = ` LIMIT $${values.length}::integer`;
  }
  const where = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  return { clauses: `FROM ${tables.runs} AS runs${where} ORDER BY ${order}${limit}`, values };
}
