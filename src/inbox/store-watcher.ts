import type { RunStore } from "../index.js";

/** Called with the ids of the runs that changed (created, saved, answered or gone) since the last look. */
export type ChangeListener = (runIds: ReadonlySet<string>) => void;

/**
 * Watches a store for changes by polling `list()`, about once a second, only while someone listens
 * (an open event stream): an idle inbox costs the database nothing. A run changed when its revision,
 * its `updatedAt` or its answers changed (`store.answer` records an answer without a new revision).
 */
export class StoreWatcher {
  readonly #store: RunStore;
  readonly #intervalMs: number;
  readonly #listeners = new Set<ChangeListener>();
  #seen: Map<string, string> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #baseline: Promise<void> = Promise.resolve();

  constructor(store: RunStore, options: { intervalMs?: number } = {}) {
    this.#store = store;
    this.#intervalMs = options.intervalMs ?? 1000;
  }

  /**
   * Starts listening; returns what stops it, and a promise settled once the watcher has looked at the
   * store (changes from then on are reported). Polling runs while at least one listener is there.
   */
  subscribe(listener: ChangeListener): { ready: Promise<void>; stop: () => void } {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#seen = undefined;
      this.#baseline = this.#poll();
      this.#timer = setInterval(() => void this.#poll(), this.#intervalMs);
    }
    return {
      ready: this.#baseline,
      stop: () => {
        this.#listeners.delete(listener);
        if (this.#listeners.size === 0) this.stop();
      },
    };
  }

  /** Stops polling and forgets every listener (the server is closing). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
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
        states.map((state) => [state.runId, `${state.revision}|${state.updatedAt}|${state.answers.length}`]),
      );
      const before = this.#seen;
      this.#seen = now;
      if (before === undefined) return;
      const changed = new Set<string>();
      for (const [runId, mark] of now) if (before.get(runId) !== mark) changed.add(runId);
      for (const runId of before.keys()) if (!now.has(runId)) changed.add(runId);
      if (changed.size > 0) for (const listener of [...this.#listeners]) listener(changed);
    } catch {
      // A failed look is tried again at the next tick; the pages show the store's errors themselves.
    } finally {
      this.#polling = false;
    }
  }
}
