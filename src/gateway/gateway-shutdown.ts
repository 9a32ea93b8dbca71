/** The error text of a call that came while the gateway stops. */
export const SHUTTING_DOWN =
  "leash: the gateway is shutting down; the call did not run. Make it again once the gateway is back.";

/** How a stop went: whether every call in flight ended within the bound, and how many did not. */
export interface Stopped {
  ended: boolean;
  left: number;
}

/**
 * A gateway's calls in flight and its stop. Once {@link stop} is called, `signal` is aborted (a call
 * that waits for a person answers at once, new calls are refused), and the stop resolves when every
 * call tracked has ended, or once `ms` have passed, whichever is first.
 */
export class Shutdown {
  readonly #controller = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();

  /** Aborted once the gateway stops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the gateway is stopping. */
  get stopping(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Counts `work` as in flight until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return work;
  }

  /** Stops taking calls, then waits for those in flight to end, at most `ms` milliseconds. */
  async stop(ms: number): Promise<Stopped> {
    this.#controller.abort();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
    try {
      // Calls tracked while others end (a recovery's resume) are waited on too.
      while (this.#inFlight.size > 0) {
        const outcome = await Promise.race([Promise.all([...this.#inFlight]), bound]);
        if (outcome === "late") return { ended: false, left: this.#inFlight.size };
      }
      return { ended: true, left: 0 };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves after `ms`, or at once when one of the signals aborts. */
export function until(ms: number, signals: readonly (AbortSignal | undefined)[]): Promise<void> {
  const live = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      for (const signal of live) signal.removeEventListener("abort", done);
      resolve();
    }
    for (const signal of live) signal.addEventListener("abort", done, { once: true });
    if (live.some((signal) => signal.aborted)) done();
  });
}
