import { prefixEnd } from "../list-runs.js";
import type { ListOptions } from "../run-store.js";
import { readCursor } from "../run-summary.js";
import type { CursorPosition, RunOrder } from "../run-summary.js";

/** What a listing's query selects, its filters and paging: {@link ListOptions} without the callback. */
export type ListingFilter = Pick<
  ListOptions,
  "status" | "awaitingPerson" | "runIdPrefix" | "limit" | "order" | "changedSince"
> & {
  /**
   * Where the page starts, read from the cursor; for the created orders with the `position` of the
   * cursor's run, which the caller looked up by its id.
   */
  after?: { cursor: CursorPosition; position?: number };
};

/** A query and its values. */
export interface ListingQuery {
  sql: string;
  values: (string | number)[];
}

/** A lone surrogate: text that UTF-8, and so SQLite, cannot hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a prefix can match a stored run id at all: one with a lone surrogate cannot (the id of a
 * stored run is well-formed text), and bound as UTF-8 it would turn into another prefix.
 */
export function prefixCanMatch(prefix: string | undefined): boolean {
  return prefix === undefined || !LONE_SURROGATE.test(prefix);
}

/**
 * The runs awaiting a person: those paused for approval, and the gate sessions (`running`) whose
 * summary counts a waiting request. Each branch names its status, so the (status, ...) indexes
 * answer both. The summary is JSON as `JSON.stringify` writes it (no spaces), so `"waiting":` then a
 * digit from 1 is the key itself and a count of at least one: inside a string every quote is
 * escaped, so the second quote of the pattern cannot be one, and no string but a key precedes a
 * colon. A row without a summary (from before schema version 4) is no gate session.
 */
const AWAITING_PERSON = `(status = 'awaiting_approval' OR (status = 'running' AND summary GLOB '*"waiting":[1-9]*'))`;

/** The ORDER BY of each order: every one ends on a unique key, so a page boundary is exact. */
const ORDER_BY: Record<RunOrder, string> = {
  created_asc: "position",
  created_desc: "position DESC",
  updated_desc: "updated_at DESC, run_id DESC",
};

/** Reads the cursor of a listing, for the order it is made for (`invalid_option` otherwise). */
export function cursorOf(options: Pick<ListOptions, "cursor" | "order">): CursorPosition | undefined {
  return options.cursor === undefined ? undefined : readCursor(options.cursor, options.order ?? "created_asc");
}

/**
 * The query of a listing, over the `runs` table, selecting `columns`. Every filter and the page's
 * start are conditions an index answers: a status with (status, position) or (status, updated_at,
 * run_id), the created orders with `position`, `updated_desc` with (updated_at, run_id) and a row
 * value comparison as the start, `changedSince` with `change` (see below). A prefix of run ids is a range on
 * the primary key's index (BINARY: UTF-8 byte order, the order `prefixEnd` assumes); no LIKE or
 * GLOB, so no character of the prefix is a wildcard. @internal
 */
export function listingQuery(filter: ListingFilter, columns: string): ListingQuery {
  const conditions: string[] = [];
  const values: (string | number)[] = [];
  if (filter.status !== undefined) {
    conditions.push("status = ?");
    values.push(filter.status);
  }
  if (filter.awaitingPerson === true) conditions.push(AWAITING_PERSON);
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
  if (filter.changedSince !== undefined) {
    conditions.push("change > ?");
    values.push(filter.changedSince);
  }
  const order = filter.order ?? "created_asc";
  const after = filter.after;
  if (after !== undefined) {
    if (order === "updated_desc") {
      conditions.push("(updated_at, run_id) < (?, ?)");
      values.push(after.cursor.key, after.cursor.runId);
    } else {
      conditions.push(order === "created_asc" ? "position > ?" : "position < ?");
      values.push(after.position ?? 0);
    }
  }
  const where = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  const limit = filter.limit === undefined ? "" : " LIMIT ?";
  if (filter.limit !== undefined) values.push(filter.limit);
  // A watcher's poll (`changedSince` the sequence it last saw) finds few runs or none: read from the
  // index of changes, then sorted, it costs what changed, where the order's index would walk every run.
  const from = filter.changedSince === undefined ? "runs" : "runs INDEXED BY runs_by_change";
  return { sql: `SELECT ${columns} FROM ${from}${where} ORDER BY ${ORDER_BY[order]}${limit}`, values };
}
