import type { RunStore } from "../index.js";

/** Called with the ids of the runs that changed (created, saved, answered or gone) since the last look. */
type ChangeListener = (runIds: ReadonlySet<string>) => void;

/** The shortest wait between two looks at the store: 2 seconds. */
const MIN_POLL_MS = 2000;

/** The longest: after looks that found nothing new, the wait doubles up to 8 seconds. */
const MAX_POLL_MS = 8000;

/**
 * Watches a store for changes by polling `list()` (the stores have no cheaper call that says what
 * changed), only while someone listens (an open event stream): an idle inbox costs the database
 * nothing. It looks every 2 s at most, and backs off while nothing changes (the wait doubles up to
 * {@link MAX_POLL_MS}, and a change brings it back to 2 s). Only a small summary of each run is kept
 * and compared: a run changed when its revision, status, `updatedAt` or number of answers changed
 * (`store.answer` records an answer without a new revision).
 */
export class StoreWatcher {
  readonly #store: RunStore;
  readonly #minMs: number;
  readonly #maxMs: number;
  #waitMs: number;
  readonly #listeners = new Set<ChangeListener>();
  #seen: Map<string, string> | undefined;
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
      const states = await this.#store.list();
      const now = new Map(
        states.map((state) => [
          state.runId,
          `${state.revision}|${state.status}|${state.updatedAt}|${state.answers.length}`,
        ]),
      );
      const before = this.#seen;
      this.#seen = now;
      if (before === undefined) return;
      const changed = new Set<string>();
      for (const [runId, mark] of now) if (before.get(runId) !== mark) changed.add(runId);
      for (const runId of before.keys()) if (!now.has(runId)) changed.add(runId);
      this.#waitMs = changed.size > 0 ? this.#minMs : Math.min(this.#waitMs * 2, this.#maxMs);
      if (changed.size > 0) for (const listener of [...this.#listeners]) listener(changed);
    } catch {
      // A failed look is tried again at the next tick; the pages show the store's errors themselves.
    } finally {
      this.#polling = false;
    }
  }
}
