import { listSummaries } from "../stores/list-summaries.js";
import type { RunStore } from "../stores/run-store.js";
import type { RunSummary } from "../state/run-summary.js";

/** Called with the ids of the runs that changed (created, saved, answered or gone) since the last look. */
type ChangeListener = (runIds: ReadonlySet<string>) => void;

/** The shortest wait between two looks at the store: 2 seconds. */
const MIN_POLL_MS = 2000;

/** The longest: after looks that found nothing new, the wait doubles up to 8 seconds. */
const MAX_POLL_MS = 8000;

/** How many summaries one read of a look takes. */
const PAGE_LIMIT = 1000;

/** What a look remembers: the store's change sequence, or (for a store without one) a mark per run. */
type Seen = { type: "sequence"; value: number } | { type: "marks"; marks: Map<string, string> };

/** What of a summary says its run changed, for a store without a change sequence. */
function markOf(run: RunSummary): string {
  return `${run.revision}|${run.status}|${run.updatedAt}|${run.answers}`;
}

/**
 * Watches a store for changes by polling, only while someone listens (an open event stream): an idle
 * inbox costs the database nothing. It looks every 2 s at most, and backs off while nothing changes
 * (the wait doubles up to {@link MAX_POLL_MS}, and a change brings it back to 2 s). On a store with a
 * change sequence (the built-in stores) a look is one `changeSequence()` call when nothing changed,
 * and then `summaries({ changedSince })` names the runs that did. On a store without one (an app's
 * own) it reads every run's summary and compares a small mark of each: its revision, status,
 * `updatedAt` and number of answers.
 */
export class StoreWatcher {
  readonly #store: RunStore;
  readonly #minMs: number;
  readonly #maxMs: number;
  #waitMs: number;
  readonly #listeners = new Set<ChangeListener>();
  #seen: Seen | undefined;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #baseline: Promise<void> = Promise.resolve();

  constructor(store: RunStore, options: { intervalMs?: number; maxIntervalMs?: number } = {}) {
    this.#store = store;
    this.#minMs = Math.max(options.intervalMs ?? MIN_POLL_MS, 1);
    this.#maxMs = Math.max(this.#minMs, options.maxIntervalMs ?? MAX_POLL_MS);
    this.#waitMs = this.#minMs;
  }

  /**
   * Starts listening; returns what stops it, and a promise settled once the watcher has looked at the
   * store (changes from then on are reported). Polling runs while at least one listener is there.
   */
  subscribe(listener: ChangeListener): { ready: Promise<void>; stop: () => void } {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#seen = undefined;
      this.#waitMs = this.#minMs;
      this.#baseline = this.#poll();
      this.#schedule();
    }
    return {
      ready: this.#baseline,
      stop: () => {
        this.#listeners.delete(listener);
        if (this.#listeners.size === 0) this.stop();
      },
    };
  }

  #schedule(): void {
    const timer: NodeJS.Timeout = setTimeout(() => {
      void this.#poll().then(() => {
        // Unless stopped (or stopped and started again, with a timer of its own) meanwhile.
        if (this.#timer === timer) this.#schedule();
      });
    }, this.#waitMs);
    this.#timer = timer;
  }

  /** Stops polling and forgets every listener (the server is closing). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }

  async #poll(): Promise<void> {
    // A slow database must not pile up overlapping listings.
    if (this.#polling) return;
    this.#polling = true;
    try {
      const before = this.#seen;
      const { seen, changed } = await this.#look(before);
      this.#seen = seen;
      if (before === undefined) return;
      this.#waitMs = changed.size > 0 ? this.#minMs : Math.min(this.#waitMs * 2, this.#maxMs);
      if (changed.size > 0) for (const listener of [...this.#listeners]) listener(changed);
    } catch {
      // A failed look is tried again at the next tick; the pages show the store's errors themselves.
    } finally {
      this.#polling = false;
    }
  }

  /** What the store holds now, and the runs that changed since `before` (none on the first look). */
  async #look(before: Seen | undefined): Promise<{ seen: Seen; changed: Set<string> }> {
    const changed = new Set<string>();
    // Both or neither: a change sequence says that something changed, the summaries say what.
    if (typeof this.#store.changeSequence === "function" && typeof this.#store.summaries === "function") {
      const value = await this.#store.changeSequence();
      if (before?.type === "sequence" && value !== before.value) {
        // Every run changed after the last look, a page at a time; one changed again while these
        // pages are read is named again at the next look, never missed.
        let cursor: string | undefined;
        do {
          const page = await listSummaries(this.#store, {
            changedSince: before.value,
            limit: PAGE_LIMIT,
            ...(cursor === undefined ? {} : { cursor }),
          });
          for (const run of page.runs) changed.add(run.runId);
          cursor = page.next;
        } while (cursor !== undefined);
      }
      return { seen: { type: "sequence", value }, changed };
    }
    const marks = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await listSummaries(this.#store, { limit: PAGE_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
      for (const run of page.runs) marks.set(run.runId, markOf(run));
      cursor = page.next;
    } while (cursor !== undefined);
    if (before?.type === "marks") {
      for (const [runId, mark] of marks) if (before.marks.get(runId) !== mark) changed.add(runId);
      for (const runId of before.marks.keys()) if (!marks.has(runId)) changed.add(runId);
    }
    return { seen: { type: "marks", marks }, changed };
  }
}
