import type { RunStore } from "../stores/run-store.js";

/**
 * Tells a worker when the store's active standing grants changed, so that it tries the paused runs
 * with no answer again: a run paused before a grant existed takes it at its next resume, and such a
 * run is otherwise skipped (nothing about it changed). The key is every active grant's id and uses:
 * a grant given, used, revoked or expired changes it; a pass that found nothing to approve leaves it
 * as it was, so an idle worker reads the grants once a pass and loads no paused run.
 */
export class GrantChanges {
  #key: string | undefined;

  /** Whether the active grants differ from the last look (and some are active). */
  async changed(store: RunStore): Promise<boolean> {
    if (store.grants === undefined) return false;
    const active = await store.grants({ active: true });
    const key = active.map((grant) => `${grant.id}:${grant.uses}`).join(",");
    const changed = active.length > 0 && key !== this.#key;
    this.#key = key;
    return changed;
  }
}
