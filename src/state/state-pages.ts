import type { RunStatus } from "./outcomes.js";
import type { RunState } from "./run-state.js";
import type { SummaryPage } from "./run-summary.js";

/** How many states a page holds unless told otherwise. */
const STATE_PAGE_LIMIT = 200;

/** The filters of a paged reading of states, and where a state that cannot be read is reported. */
export interface StatePageFilters {
  status?: RunStatus;
  runIdPrefix?: string;
  onUnreadable?: (problem: { runId: string; error: Error }) => void;
}

/**
 * What the pager reads of a store: its `list()` and, when it keeps them, its `summaries()`, as the
 * `RunStore` port gives them (a store is one, structurally; this floor knows states, not stores).
 */
export interface PagedStates {
  list(options: StatePageFilters & { limit?: number; cursor?: string }): Promise<RunState[]>;
  summaries?(
    options: Omit<StatePageFilters, "onUnreadable"> & { limit?: number; cursor?: string },
  ): Promise<SummaryPage>;
}

/**
 * @internal Every stored run's state matching `filters` (creation order), a page of `limit` states
 * at a time, so a check of every run holds one page, not the store. Each page is
 * `list({ limit, cursor })`; the cursor of the next is the `next` of the summaries read with the same
 * filters and cursor, since `list()` leaves out (and reports) a run it cannot read, so its own page
 * says neither whether more follow nor which run was the page's last (a page of unreadable states
 * alone would leave nothing to go on after). A store without summaries (an app's own) is read in one
 * page, and so is one whose `list()` gives more than `limit` states: it gave them all.
 */
export async function* statePages(
  store: PagedStates,
  filters: StatePageFilters = {},
  limit = STATE_PAGE_LIMIT,
): AsyncGenerator<RunState[]> {
  if (typeof store.summaries !== "function") {
    // A store an app wrote itself may not page its `list()`: it is read whole, as it always was.
    yield await store.list(filters);
    return;
  }
  const { onUnreadable, ...kept } = filters;
  let cursor: string | undefined;
  for (;;) {
    const at = { ...kept, limit, ...(cursor === undefined ? {} : { cursor }) };
    const page = await store.summaries(at);
    if (page.runs.length === 0) return;
    const states = await store.list(onUnreadable === undefined ? at : { ...at, onUnreadable });
    yield states;
    // More than asked for: a store that ignores `limit` gave every run, and every later page would repeat them.
    if (page.next === undefined || states.length > limit) return;
    cursor = page.next;
  }
}
