import { LeashError, checkOptionKeys } from "../../errors/index.js";
import type { PostgresPool } from "./postgres-pool.js";

/** Where a {@link PostgresStore} connects: a connection string (the store makes and ends its pool) or a pool of yours. */
export type PostgresConnection =
  { connectionString: string; pool?: undefined } | { pool: PostgresPool; connectionString?: undefined };

/** What the store connects through, checked: a connection string with its pool size, or a pool of the caller's. */
export type CheckedConnection = { connectionString: string; poolMax: number } | { pool: PostgresPool };

/** The option keys the first argument of `new PostgresStore` takes. */
export const CONNECTION_KEYS = ["connectionString", "pool", "schema", "timeouts", "poolMax"];

function isPool(value: unknown): value is PostgresPool {
  if (typeof value !== "object" || value === null) return false;
  const pool = value as Record<string, unknown>;
  return typeof pool.connect === "function" && typeof pool.query === "function" && typeof pool.end === "function";
}

/**
 * Checks the pool size: a positive integer, and only for a pool the store makes. A pool given to the
 * store was sized by its owner; a `poolMax` beside it would be silently ignored, so it is refused.
 */
function checkPoolMax(poolMax: unknown, withPool: boolean, fallback: number): number {
  if (poolMax === undefined) return fallback;
  if (withPool)
    throw new LeashError(
      "invalid_option",
      "Expected no `poolMax` with `pool`: a pool you give is sized when you make it (pg's `max`).",
    );
  if (!Number.isSafeInteger(poolMax) || (poolMax as number) < 1)
    throw new LeashError("invalid_option", "Expected `poolMax` to be a positive integer (connections).");
  return poolMax as number;
}

/**
 * Checks the first argument of `new PostgresStore`, and a `poolMax` given in either argument (one of
 * them at most), refusing with `invalid_option` what it cannot use.
 */
export function checkConnection(
  connection: unknown,
  options: { poolMax?: unknown },
  defaultPoolMax: number,
): CheckedConnection {
  if (typeof connection !== "object" || connection === null) {
    throw new LeashError(
      "invalid_option",
      "Expected `{ connectionString }` or `{ pool }` to connect PostgresStore to.",
    );
  }
  checkOptionKeys(connection, CONNECTION_KEYS, "new PostgresStore(connection)");
  const { connectionString, pool, poolMax } = connection as {
    connectionString?: unknown;
    pool?: unknown;
    poolMax?: unknown;
  };
  if (poolMax !== undefined && options.poolMax !== undefined)
    throw new LeashError("invalid_option", "Expected `poolMax` in one of the two arguments, not both.");
  const givenMax = poolMax !== undefined ? poolMax : options.poolMax;
  if (connectionString !== undefined && pool !== undefined) {
    throw new LeashError("invalid_option", "Expected either `connectionString` or `pool`, not both.");
  }
  if (pool !== undefined) {
    if (!isPool(pool))
      throw new LeashError("invalid_option", "Expected `pool` to be a pg Pool (with `connect`, `query` and `end`).");
    checkPoolMax(givenMax, true, defaultPoolMax);
    return { pool };
  }
  if (typeof connectionString !== "string" || connectionString.length === 0) {
    throw new LeashError(
      "invalid_option",
      "Expected `connectionString` to be a non-empty string (is DATABASE_URL set?).",
    );
  }
  return { connectionString, poolMax: checkPoolMax(givenMax, false, defaultPoolMax) };
}
