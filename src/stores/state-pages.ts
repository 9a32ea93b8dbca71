import type { RunState } from "../state/run-state.js";
import type { ListOptions, RunStore } from "./run-store.js";

/** How many states a page holds unless told otherwise. */
const STATE_PAGE_LIMIT = 200;

/**
 * @internal Every stored run's state matching `options` (their filters; creation order), a page of
 * `limit` states at a time, so a check of every run holds one page, not the store. Each page is
 * `list({ limit, cursor })`; the cursor of the next is the `next` of the summaries read with the same
 * options and cursor, since `list()` leaves out (and reports) a run it cannot read, so its own page
 * says neither whether more follow nor which run was the page's last. A store without summaries
 * (an app's own) is read in one page.
 */
export async function* statePages(
  store: Pick<RunStore, "list" | "summaries">,
  options: Pick<ListOptions, "status" | "runIdPrefix" | "onUnreadable"> = {},
  limit = STATE_PAGE_LIMIT,
): AsyncGenerator<RunState[]> {
  if (typeof store.summaries !== "function") {
    // A store an app wrote itself may not page its `list()`: it is read whole, as it always was.
    yield await store.list(options);
    return;
  }
  let cursor: string | undefined;
  for (;;) {
    const at = { ...options, limit, ...(cursor === undefined ? {} : { cursor }) };
    const { onUnreadable, ...filters } = at;
    const page = await store.summaries(filters);
    if (page.runs.length === 0) return;
    yield await store.list(onUnreadable === undefined ? filters : { ...filters, onUnreadable });
    if (page.next === undefined) return;
    cursor = page.next;
  }
}
