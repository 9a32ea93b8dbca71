import { checkOptionKeys, isLeashError, LeashError } from "../errors/index.js";
import { RUN_STATUSES } from "../state/outcomes.js";
import type { RunState } from "../state/run-state.js";
import type { ListOptions, UnreadableRun } from "./run-store.js";
import { MAX_LIST_LIMIT, readCursor, RUN_ORDERS } from "./run-summary.js";

/** @internal Checks the options of `list()`, for every store alike. */
export function checkListOptions(options: unknown): ListOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the options of list() to be an object.");
  checkOptionKeys(
    options,
    ["status", "awaitingPerson", "runIdPrefix", "onUnreadable", "limit", "cursor", "order", "changedSince"],
    "list(options)",
  );
  const { status, awaitingPerson, onUnreadable, runIdPrefix, limit, cursor, order, changedSince } =
    options as ListOptions;
  if (runIdPrefix !== undefined && typeof runIdPrefix !== "string")
    throw new LeashError("invalid_option", "Expected `runIdPrefix` to be a string.");
  if (status !== undefined && !RUN_STATUSES.includes(status)) {
    throw new LeashError("invalid_option", `Expected \`status\` to be one of ${RUN_STATUSES.join(", ")}.`);
  }
  if (awaitingPerson !== undefined && typeof awaitingPerson !== "boolean")
    throw new LeashError("invalid_option", "Expected `awaitingPerson` to be a boolean.");
  if (awaitingPerson === true && status !== undefined)
    throw new LeashError(
      "invalid_option",
      "Expected `status` or `awaitingPerson`, not both: `awaitingPerson` already names the statuses it lists.",
    );
  if (onUnreadable !== undefined && typeof onUnreadable !== "function")
    throw new LeashError("invalid_option", "Expected `onUnreadable` to be a function.");
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT))
    throw new LeashError("invalid_option", `Expected \`limit\` to be an integer from 1 to ${MAX_LIST_LIMIT}.`);
  if (order !== undefined && !RUN_ORDERS.includes(order))
    throw new LeashError("invalid_option", `Expected \`order\` to be one of ${RUN_ORDERS.join(", ")}.`);
  if (cursor !== undefined) {
    if (typeof cursor !== "string") throw new LeashError("invalid_option", "Expected `cursor` to be a string.");
    readCursor(cursor, order ?? "created_asc");
  }
  if (changedSince !== undefined && (!Number.isSafeInteger(changedSince) || changedSince < 0))
    throw new LeashError("invalid_option", "Expected `changedSince` to be a whole number, 0 or more.");
  return options;
}

/** The highest code point; a prefix's bound skips past a run of them at its end. */
const MAX_CODE_POINT = 0x10ffff;

/**
 * @internal The least string above every string that starts with `prefix`, in code-point order (which
 * is the byte order of UTF-8, as SQLite's BINARY collation and PostgreSQL's pattern operators
 * compare): with `run_id >= prefix AND run_id < end`, an index on run ids answers a prefix as a
 * range. `undefined` when there is no such bound (an empty prefix, or one of only U+10FFFF).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix, (char) => char.codePointAt(0) ?? 0);
  while (points.length > 0 && points[points.length - 1] === MAX_CODE_POINT) points.pop();
  const last = points.pop();
  if (last === undefined) return undefined;
  // The next code point, past the surrogates, which UTF-8 cannot hold.
  points.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
  return String.fromCodePoint(...points);
}

/**
 * @internal Reads the runs of a listing one by one: a run whose saved state cannot be read (a leash
 * error from its parser: `invalid_state`, `unsupported_version`, ...) is left out and collected, so
 * one bad row never fails the listing. Any other error (the database's) still fails it.
 */
export function readEach<Row>(
  rows: readonly Row[],
  runIdOf: (row: Row) => string,
  read: (row: Row) => RunState,
): { states: RunState[]; unreadable: UnreadableRun[] } {
  const states: RunState[] = [];
  const unreadable: UnreadableRun[] = [];
  for (const row of rows) {
    try {
      states.push(read(row));
    } catch (error) {
      if (!isLeashError(error) && !(error instanceof RangeError)) throw error;
      unreadable.push({ runId: runIdOf(row), error });
    }
  }
  return { states, unreadable };
}

/** @internal Tells the caller of `list()` about each run left out, once, after the listing is read. */
export function reportUnreadable(options: ListOptions, unreadable: readonly UnreadableRun[]): void {
  for (const problem of unreadable) options.onUnreadable?.(problem);
}
