import pg from "pg";
import type { PostgresPool } from "./postgres-pool.js";

/**
 * Makes the pool a store owns, from a connection string. No connection is opened until the first
 * query. An idle connection that the server drops (a restart, a failover) makes the pool emit
 * `error`; unheard, that event would end the process, while the next query simply connects anew.
 */
export function openPool(connectionString: string): PostgresPool {
  const pool = new pg.Pool({ connectionString });
  pool.on("error", () => undefined);
  return pool;
}
