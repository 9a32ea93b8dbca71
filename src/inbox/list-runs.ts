import { LeashError } from "../errors/leash-error.js";
import { listSummaries } from "../stores/list-summaries.js";
import { RUN_STATUSES } from "../state/outcomes.js";
import type { ListOptions } from "../stores/run-store.js";
import type { RunStatus } from "../state/outcomes.js";
import type { CliStore } from "../operate/open-store.js";
import { runRowOf } from "../operate/run-row.js";
import type { RunRow } from "../operate/run-row.js";
import { readGaveUp } from "./gave-up.js";
import type { GaveUpWork } from "./gave-up.js";

/** How many runs a page of the list shows. */
export const RUNS_PER_PAGE = 50;

/** The filters of the run list: every run status, and the work that gave up. */
export const LIST_FILTERS: readonly string[] = [...RUN_STATUSES, "gave_up"];

/** How many runs are passed over at a time to reach `?page=N` without a cursor. */
const SKIP_LIMIT = 1000;

/** One page of the run list. */
export interface RunPage {
  runs: RunRow[];
  /** 1-based; `null` for a page reached by a cursor alone, whose number is not known. */
  page: number | null;
  /** The cursor of the next page, or `undefined` at the end (a full page may be followed by an empty one). */
  next: string | undefined;
  status: string | null;
}

/** What a list request asks for, checked. */
export interface RunListQuery {
  status: string | null;
  /** 1-based; `null` when only a cursor was given. */
  page: number | null;
  /** A page's `next`: where the page starts. */
  cursor: string | undefined;
}

/** The number of a page (`?page=`, 1-based), checked: anything else is the caller's mistake. */
export function pageQuery(page: string | undefined, withCursor = false): number {
  const number = page === undefined || page === "" ? 1 : Number(page);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new LeashError("invalid_option", "Expected page to be a positive whole number.");
  // A page number without a cursor is found by reading the summaries before it: bounded, so that no
  // request makes the server read a whole large store. The pages' own links carry cursors.
  if (!withCursor && number > MAX_PAGE_WITHOUT_CURSOR)
    throw new LeashError(
      "invalid_option",
      `Expected page to be at most ${MAX_PAGE_WITHOUT_CURSOR}; follow the pages' links (they carry a cursor) to read further.`,
    );
  return number;
}

/** The highest `?page=` taken without a `?cursor=`. */
export const MAX_PAGE_WITHOUT_CURSOR = 200;

/** A `?cursor=` as given in a URL: absent or empty is none; the store checks the rest. */
function cursorQuery(cursor: string | undefined): string | undefined {
  return cursor === undefined || cursor === "" ? undefined : cursor;
}

/** Checks `?status=`, `?page=` and `?cursor=` as given in a URL: unknown values are the caller's mistake. */
export function listQuery(status: string | undefined, page: string | undefined, cursor?: string): RunListQuery {
  const filter = status === undefined || status === "" ? null : status;
  if (filter !== null && !LIST_FILTERS.includes(filter))
    throw new LeashError("invalid_option", `Expected status to be one of ${LIST_FILTERS.join(", ")}.`);
  const start = cursorQuery(cursor);
  // A cursor alone says where the page starts but not its number.
  const number =
    start !== undefined && (page === undefined || page === "") ? null : pageQuery(page, start !== undefined);
  return { status: filter, page: number, cursor: start };
}

/** Reads one page of `limit` items from `cursor`: how many came back, and the next page's cursor. */
type ReadPage = (limit: number, cursor: string | undefined) => Promise<{ count: number; next: string | undefined }>;

/**
 * The cursor where page `page` (1-based, `perPage` items each) starts, found by passing over the
 * pages before it in reads of at most {@link SKIP_LIMIT} items: a page's number costs reads in
 * proportion to it, never a count of the whole listing. `null` when the listing ends before it.
 */
async function cursorOfPage(page: number, perPage: number, read: ReadPage): Promise<string | undefined | null> {
  let remaining = (page - 1) * perPage;
  let cursor: string | undefined;
  while (remaining > 0) {
    const limit = Math.min(remaining, SKIP_LIMIT);
    const passed = await read(limit, cursor);
    if (passed.count < limit || passed.next === undefined) return null;
    remaining -= passed.count;
    cursor = passed.next;
  }
  return cursor;
}

/** Reads one page of a listing: its items and the next page's cursor. */
type PageReader<Item> = (
  limit: number,
  cursor: string | undefined,
) => Promise<{ items: Item[]; next: string | undefined }>;

/** The page a query asks for: from its cursor, or found by its number. */
async function pageOf<Item>(
  query: RunListQuery,
  read: PageReader<Item>,
): Promise<{ items: Item[]; next: string | undefined }> {
  let cursor = query.cursor;
  if (cursor === undefined && query.page !== null && query.page > 1) {
    const start = await cursorOfPage(query.page, RUNS_PER_PAGE, async (limit, from) => {
      const passed = await read(limit, from);
      return { count: passed.items.length, next: passed.next };
    });
    if (start === null) return { items: [], next: undefined };
    cursor = start;
  }
  return read(RUNS_PER_PAGE, cursor);
}

/**
 * A page of the store's runs, newest first (by `updatedAt`, then run id, so pages do not shuffle),
 * {@link RUNS_PER_PAGE} to a page, read from the store's summaries (no run's state is read) from the
 * query's cursor, or by page number. `awaiting_approval` lists every run awaiting a person, gate
 * sessions with requests waiting included. `gave_up` lists the last attempt of each piece of work that gave up.
 */
export async function listRuns(store: CliStore, query: RunListQuery, viewer?: string): Promise<RunPage> {
  const found = await pageOf(query, async (limit, cursor) => {
    const at = cursor === undefined ? {} : { cursor };
    if (query.status === "gave_up") {
      // The signed-in person's sponsored work first, then the rest.
      const gaveUp = await readGaveUp(store, { limit, ...at, ...(viewer === undefined ? {} : { sponsor: viewer }) });
      return { items: gaveUp.runs, next: gaveUp.next };
    }
    const options: ListOptions = {
      order: "updated_desc",
      limit,
      // `awaiting_approval` is every run awaiting a person, as `leash runs --status awaiting_approval`
      // lists it: gate sessions with requests waiting stay `running` between calls.
      ...(query.status === null
        ? {}
        : query.status === "awaiting_approval"
          ? { awaitingPerson: true }
          : { status: query.status as RunStatus }),
      ...at,
    };
    const page = await listSummaries(store, options);
    return { items: page.runs, next: page.next };
  });
  return { runs: found.items.map(runRowOf), page: query.page, next: found.next, status: query.status };
}

/** A page of the work that gave up, newest first, {@link RUNS_PER_PAGE} to a page, from the query's cursor or by number. */
export async function listGaveUpPage(
  store: CliStore,
  query: RunListQuery,
  viewer?: string,
): Promise<{ work: GaveUpWork[]; page: number | null; next: string | undefined }> {
  const found = await pageOf(query, async (limit, cursor) => {
    const gaveUp = await readGaveUp(store, {
      limit,
      ...(cursor === undefined ? {} : { cursor }),
      // The signed-in person's sponsored work first, then the rest.
      ...(viewer === undefined ? {} : { sponsor: viewer }),
    });
    return { items: gaveUp.work, next: gaveUp.next };
  });
  return { work: found.items, page: query.page, next: found.next };
}
