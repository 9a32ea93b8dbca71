import pg from "pg";
import { LeashError } from "../../errors/index.js";
import type { PostgresPool } from "./postgres-pool.js";

/**
 * How long a {@link PostgresStore} that makes its own pool waits on the network and the server, in
 * milliseconds, so that a dead network or a stuck server is an error, never a worker hung for good.
 */
export interface PostgresTimeouts {
  /** Opening one connection, TLS and authentication included (given to each pg client). Default 10000. */
  connectMs?: number;
  /**
   * Waiting for a connection of the pool: in the queue while all `poolMax` of them are in use, and
   * opening a new one (so also bounded by `connectMs`). A call that waits longer fails with
   * `store_busy`, which says to try again later. Default 60000: under load, calls queue rather than fail.
   */
  acquireMs?: number;
  /** The server cancels a statement that runs longer (`statement_timeout`). Default 30000. */
  statementMs?: number;
  /**
   * The client gives up on a query with no answer (pg's `query_timeout`): what ends a wait on a
   * server that stopped answering, which `statement_timeout` cannot. Default 35000.
   */
  queryMs?: number;
  /** The server ends a session idle inside a transaction (`idle_in_transaction_session_timeout`). Default 60000. */
  idleInTransactionMs?: number;
}

/** The timeouts a store's own pool uses unless told otherwise. */
export const DEFAULT_POSTGRES_TIMEOUTS: Required<PostgresTimeouts> = {
  connectMs: 10_000,
  acquireMs: 60_000,
  statementMs: 30_000,
  queryMs: 35_000,
  idleInTransactionMs: 60_000,
};

/** Checks the timeouts given in the store's options and fills in the defaults. */
export function resolveTimeouts(given: unknown): Required<PostgresTimeouts> {
  if (given === undefined) return { ...DEFAULT_POSTGRES_TIMEOUTS };
  if (typeof given !== "object" || given === null)
    throw new LeashError("invalid_option", "Expected `timeouts` to be an object of milliseconds.");
  const resolved = { ...DEFAULT_POSTGRES_TIMEOUTS };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_POSTGRES_TIMEOUTS))
      throw new LeashError("invalid_option", `Unknown timeout \`${key}\`; known: ${Object.keys(resolved).join(", ")}.`);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) <= 0 || (value as number) > 2 ** 31 - 1)
      throw new LeashError("invalid_option", `Expected \`timeouts.${key}\` to be a positive integer of milliseconds.`);
    resolved[key as keyof PostgresTimeouts] = value as number;
  }
  return resolved;
}

/** How many connections a store's own pool opens at most, unless told otherwise. */
export const DEFAULT_POOL_MAX = 10;

/**
 * Makes the pool a store owns, from a connection string, with its size and timeouts. No connection
 * is opened until the first query. pg's pool bounds a wait for a connection by its own
 * `connectionTimeoutMillis` (here `acquireMs`), queue included; each client it makes bounds opening
 * its connection by `connectMs`, so a long queue under load waits instead of failing, while a server
 * that does not answer still fails fast. An idle connection that the server drops (a restart, a
 * failover) makes the pool emit `error`; unheard, that event would end the process, while the next
 * query simply connects anew.
 */
export function openPool(
  connectionString: string,
  timeouts: Required<PostgresTimeouts>,
  poolMax: number = DEFAULT_POOL_MAX,
): PostgresPool {
  const connectMs = timeouts.connectMs;
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectMs });
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: poolMax,
    Client: BoundedClient,
    connectionTimeoutMillis: timeouts.acquireMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  });
  pool.on("error", () => undefined);
  return pool;
}
