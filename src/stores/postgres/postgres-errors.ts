import { LeashError, isLeashError, messageOf } from "../../errors/index.js";

/** SQLSTATE codes the store acts on (PostgreSQL appendix A). */
export const SQLSTATE = {
  uniqueViolation: "23505",
  serializationFailure: "40001",
  deadlockDetected: "40P01",
  undefinedTable: "42P01",
  invalidSchemaName: "3F000",
} as const;

/** The SQLSTATE of a driver error, if it has one. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Whether a transaction that failed with this error was rolled back whole and may simply run again:
 * a serialization failure or a deadlock, which PostgreSQL resolves by aborting one of the parties.
 */
export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  return state === SQLSTATE.serializationFailure || state === SQLSTATE.deadlockDetected;
}

/** The message pg's pool fails a wait for a connection with, once its `connectionTimeoutMillis` passed. */
export const POOL_WAIT_TIMEOUT = "timeout exceeded when trying to connect";

/**
 * Whether an error is pg's pool giving up on a wait for a connection (the store's `acquireMs`): all
 * its connections stayed in use that long, so the store is busy, not broken.
 */
export function isPoolWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === POOL_WAIT_TIMEOUT;
}

/**
 * Turns whatever a driver call threw into a {@link LeashError}: a LeashError passes through, anything
 * else becomes `store_failed` naming what was being done, with the driver's error as its cause, so a
 * raw driver error never reaches the caller. A wait for a free connection that ran out is
 * `store_busy` instead: nothing was sent, so nothing was written.
 */
export function storeFailed(error: unknown, doing: string): LeashError {
  if (isLeashError(error)) return error;
  if (isPoolWaitTimeout(error)) {
    return new LeashError(
      "store_busy",
      `PostgreSQL stayed busy while ${doing}: no connection of the pool was free within \`timeouts.acquireMs\` (nothing was written; try again).`,
      { cause: error },
    );
  }
  const state = sqlState(error);
  return new LeashError("store_failed", `PostgreSQL failed while ${doing}: ${messageOf(error)}`, {
    cause: error,
    details: state === undefined ? {} : { sqlState: state },
  });
}
