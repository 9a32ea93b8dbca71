import type { PostgresClient, PostgresPool, PostgresQueryResult } from "./postgres-pool.js";

/**
 * A pool that counts the work in flight on it (a query not yet answered, a connection not yet given
 * back), so that closing a store can wait for that work to end before it ends the pool: ending a
 * `pg.Pool` drops the callers still waiting for a connection without ever settling their promises.
 */
export class TrackedPool implements PostgresPool {
  readonly #inner: PostgresPool;
  #pending = 0;
  #waiters: (() => void)[] = [];

  constructor(inner: PostgresPool) {
    this.#inner = inner;
  }

  async query(text: string, values?: unknown[]): Promise<PostgresQueryResult> {
    this.#pending++;
    try {
      return await this.#inner.query(text, values);
    } finally {
      this.#done();
    }
  }

  async connect(): Promise<PostgresClient> {
    this.#pending++;
    let client: PostgresClient;
    try {
      client = await this.#inner.connect();
    } catch (error) {
      this.#done();
      throw error;
    }
    let released = false;
    const release = client.release.bind(client);
    client.release = (destroy?: boolean | Error) => {
      if (!released) {
        released = true;
        this.#done();
      }
      release(destroy);
    };
    return client;
  }

  end(): Promise<void> {
    return this.#inner.end();
  }

  /** Resolves once nothing is in flight on the pool, or after `withinMs`, whichever comes first. */
  idle(withinMs: number): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, withinMs);
      timer.unref();
      const waiters = this.#waiters;
      function finish(): void {
        clearTimeout(timer);
        const place = waiters.indexOf(finish);
        if (place !== -1) waiters.splice(place, 1);
        resolve();
      }
      waiters.push(finish);
    });
  }

  #done(): void {
    this.#pending--;
    if (this.#pending === 0) for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
