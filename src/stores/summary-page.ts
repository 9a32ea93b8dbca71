import { LeashError } from "../errors/index.js";
import type { ListOptions } from "./run-store.js";
import { cursorAfter, isAwaitingPerson, readCursor } from "./run-summary.js";
import type { RunOrder, RunSummary, SummaryPage } from "./run-summary.js";

/**
 * Compares two strings by code point, which is how UTF-8 bytes compare (SQLite's BINARY collation,
 * PostgreSQL's byte-order index): JavaScript's `<` compares UTF-16 units, which puts a character
 * above U+FFFF before U+E000..U+FFFF, so a store in memory would order ids unlike the SQL stores.
 */
function compareCodePoints(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return codeUnitRank(a) - codeUnitRank(b);
  }
  return left.length - right.length;
}

/** A UTF-16 unit's place in code-point order: surrogates (astral characters) above U+E000..U+FFFF. */
function codeUnitRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** `updated_desc`: the latest update first, ties by run id, the greatest first. */
function updatedFirst(left: RunSummary, right: RunSummary): number {
  return compareCodePoints(right.updatedAt, left.updatedAt) || compareCodePoints(right.runId, left.runId);
}

/**
 * @internal One page of a listing, computed in memory from the summaries of every stored run in
 * creation order (the order of `position`), for stores that keep no index: the filters, order,
 * cursor and limit of `options` (already checked), as the SQL stores answer them from theirs.
 * Every run is passed, not only those of the status asked for, because a created-order cursor
 * resumes after its run's place, and that run may have changed status since its page was read.
 */
export function summaryPage(created: readonly RunSummary[], options: ListOptions): SummaryPage {
  const order: RunOrder = options.order ?? "created_asc";
  const { status, awaitingPerson, runIdPrefix, changedSince, limit } = options;
  const matches = (run: RunSummary): boolean =>
    (status === undefined || run.status === status) &&
    (awaitingPerson !== true || isAwaitingPerson(run)) &&
    (runIdPrefix === undefined || run.runId.startsWith(runIdPrefix)) &&
    (changedSince === undefined || run.change > changedSince);
  let runs: RunSummary[];
  if (order === "updated_desc") {
    runs = created.filter(matches).sort(updatedFirst);
    if (options.cursor !== undefined) {
      const { key, runId } = readCursor(options.cursor, order);
      const after = { runId, updatedAt: key } as RunSummary;
      runs = runs.filter((run) => updatedFirst(after, run) < 0);
    }
  } else {
    let start = 0;
    let end = created.length;
    if (options.cursor !== undefined) {
      const { runId } = readCursor(options.cursor, order);
      const place = created.findIndex((run) => run.runId === runId);
      if (place === -1)
        throw new LeashError("invalid_option", `The cursor resumes after run \`${runId}\`, which is not in the store.`);
      if (order === "created_asc") start = place + 1;
      else end = place;
    }
    runs = created.slice(start, end).filter(matches);
    if (order === "created_desc") runs.reverse();
  }
  if (limit === undefined || runs.length < limit) return { runs, next: undefined };
  const page = runs.slice(0, limit);
  return { runs: page, next: cursorAfter(page.at(-1)!, order) };
}
