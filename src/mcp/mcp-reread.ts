/** What a {@link Rereader} does: list, then apply a listing, or mark the tools refused after failures. */
interface RereadSteps<Listing> {
  list(): Promise<Listing>;
  apply(listing: Listing): void;
  fail(error: unknown): void;
  isClosed(): boolean;
}

const ATTEMPTS = 3;
const FIRST_BACKOFF_MS = 250;

/**
 * Re-reads a server's tools on request, coalesced: at most one re-read in flight and one waiting, so a
 * storm of `tools/list_changed` costs at most two listings at a time. A failed listing is retried with
 * backoff a bounded number of times; when every attempt fails, the tools are refused and `failed`
 * stays set until a later re-read works.
 */
export class Rereader<Listing = unknown> {
  /** Whether the last re-read failed every attempt. */
  failed = false;
  readonly #steps: RereadSteps<Listing>;
  #running: Promise<void> | undefined;
  #pending: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(steps: RereadSteps<Listing>) {
    this.#steps = steps;
  }

  /** Asks for a re-read; resolves once one that started after this request has finished. */
  request(): Promise<void> {
    if (this.#running === undefined) {
      this.#running = this.#run().finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#pending ??= this.#running.then(() => {
      this.#pending = undefined;
      return this.request();
    });
    return this.#pending;
  }

  /** Ends a backoff wait at once; no further attempt starts once the tools are closed. */
  stop(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    let lastError: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      if (this.#steps.isClosed()) return;
      if (attempt > 0) await this.#pause(FIRST_BACKOFF_MS * 4 ** (attempt - 1));
      if (this.#steps.isClosed()) return;
      try {
        const listing = await this.#steps.list();
        this.#steps.apply(listing);
        this.failed = false;
        return;
      } catch (error) {
        lastError = error;
      }
    }
    this.#steps.fail(lastError);
    this.failed = true;
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}
