import { LeashError } from "../errors/index.js";
import { checkListOptions } from "./list-runs.js";
import { isRunStore } from "./run-store.js";
import type { ListOptions, RunStore } from "./run-store.js";
import { summaryOf } from "./run-summary.js";
import type { SummaryPage } from "./run-summary.js";
import { summaryPage } from "./summary-page.js";

/**
 * One page of run summaries from any {@link RunStore}: the store's own `summaries()` when it has one
 * (the built-in stores answer it from an index, reading no run's state), else the same page computed
 * from its `list()`, for a store an app wrote itself. Such a store keeps no change sequence, so there
 * every summary's `change` is 0 and `changedSince` is refused (`invalid_option`).
 *
 * @example
 * const page = await listSummaries(store, { status: "awaiting_approval", order: "updated_desc", limit: 50 });
 * const more = page.next === undefined ? [] : (await listSummaries(store, { status: "awaiting_approval", order: "updated_desc", limit: 50, cursor: page.next })).runs;
 */
export async function listSummaries(store: RunStore, options?: ListOptions): Promise<SummaryPage> {
  if (!isRunStore(store)) throw new LeashError("invalid_option", "Expected `store` to be a RunStore.");
  if (typeof store.summaries === "function") return store.summaries(options);
  const checked = checkListOptions(options);
  if (checked.changedSince !== undefined)
    throw new LeashError(
      "invalid_option",
      "This store keeps no change sequence (it has no `summaries()`), so a listing cannot take `changedSince`.",
    );
  // Every run of the prefix, whatever its status: a created-order cursor resumes after its run's
  // place in the whole listing, and that run may have changed status since.
  const states = await store.list({
    ...(checked.runIdPrefix === undefined ? {} : { runIdPrefix: checked.runIdPrefix }),
    ...(checked.onUnreadable === undefined ? {} : { onUnreadable: checked.onUnreadable }),
  });
  return summaryPage(
    states.map((state) => summaryOf(state, 0)),
    checked,
  );
}
