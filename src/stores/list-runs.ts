import { isLeashError, LeashError } from "../errors/index.js";
import { RUN_STATUSES } from "../state/outcomes.js";
import type { RunState } from "../state/run-state.js";
import type { ListOptions, UnreadableRun } from "./run-store.js";

/** @internal Checks the options of `list()`, for every store alike. */
export function checkListOptions(options: unknown): ListOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the options of list() to be an object.");
  const { status, onUnreadable } = options as ListOptions;
  if (status !== undefined && !RUN_STATUSES.includes(status)) {
    throw new LeashError("invalid_option", `Expected \`status\` to be one of ${RUN_STATUSES.join(", ")}.`);
  }
  if (onUnreadable !== undefined && typeof onUnreadable !== "function")
    throw new LeashError("invalid_option", "Expected `onUnreadable` to be a function.");
  return options;
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
