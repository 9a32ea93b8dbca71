import { isRetryable, storeFailed } from "./postgres-errors.js";

/** What the store reads from a query result; `pg`'s results have this shape. */
export interface PostgresQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** A connection checked out of a pool; `pg`'s `PoolClient` has this shape. */
export interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Gives the connection back; `true` (or an error) destroys it instead. */
  release(destroy?: boolean | Error): void;
}

/**
 * The part of a `pg.Pool` the store uses. Typed by shape, so that `leash/postgres` users need no
 * `@types/pg` and any pool with this shape (a `pg.Pool`, a wrapper around one) can be given.
 */
export interface PostgresPool {
  connect(): Promise<PostgresClient>;
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  end(): Promise<void>;
}

/** How often a transaction that PostgreSQL aborted to break a deadlock or a serialization conflict runs again. */
const MAX_ATTEMPTS = 5;

/**
 * Runs `body` in one transaction on one connection: COMMIT when it returns, ROLLBACK when it throws.
 * A transaction that PostgreSQL rolled back whole (serialization failure, deadlock) runs again, up to
 * five times, because nothing of it was written; anything else that is not a `LeashError` becomes
 * `store_failed`, so no raw driver error escapes.
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  doing: string,
  body: (client: PostgresClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client: PostgresClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw storeFailed(error, doing);
    }
    let broken = false;
    let retry: boolean;
    try {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        // A connection that cannot even roll back is not given back to the pool for reuse.
        broken = true;
      }
      retry = !broken && isRetryable(error) && attempt < MAX_ATTEMPTS;
      if (!retry) throw storeFailed(error, doing);
    } finally {
      client.release(broken);
    }
    if (retry) await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * attempt)));
  }
}

/** Runs one statement outside a transaction, mapping any driver error to `store_failed`. */
export async function queryOnce(
  pool: PostgresPool,
  doing: string,
  text: string,
  values?: unknown[],
): Promise<PostgresQueryResult> {
  try {
    return await pool.query(text, values);
  } catch (error) {
    throw storeFailed(error, doing);
  }
}
