import { isLeashError, LeashError } from "../../errors/index.js";

/** What a store was doing when the driver failed, for the message and the mapping of `SQLITE_BUSY`. */
export interface SqliteOperation {
  /** The store method, e.g. `save`. */
  method: string;
  /** The database file. */
  path: string;
  /** The run concerned, when there is one. */
  runId?: string;
  /** Whether the operation is a compare-and-set on a run (a save or a claim). */
  compareAndSet?: boolean;
}

function driverCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** Whether a driver error is a lock that was not obtained within the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = driverCode(error);
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Whether a driver error is a uniqueness or key violation. */
export function isKeyViolation(error: unknown): boolean {
  const code = driverCode(error);
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/**
 * Turns whatever an operation threw into a leash error, so that no raw driver error reaches a caller:
 * leash errors pass unchanged; `SQLITE_BUSY` (a lock not obtained within the busy timeout) is
 * `store_busy`: a busy database is not a lost race (two racing writers wait on each other within the
 * timeout, and the loser's compare-and-set then says `stale_state`); any other driver error is
 * `store_failed`, with the driver's error as its cause.
 */
export function toLeashError(error: unknown, operation: SqliteOperation): LeashError {
  if (isLeashError(error)) return error;
  const code = driverCode(error) ?? "unknown";
  const details = {
    path: operation.path,
    driverCode: code,
    ...(operation.runId === undefined ? {} : { runId: operation.runId }),
  };
  const about = operation.runId === undefined ? "" : ` of run \`${operation.runId}\``;
  if (isBusy(error)) {
    return new LeashError(
      "store_busy",
      `The ${operation.method}${about} could not lock \`${operation.path}\` within the busy timeout: another process held the database that long. Nothing was written; try again.`,
      { details, cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LeashError(
    "store_failed",
    `The SQLite store \`${operation.path}\` failed in ${operation.method}${about}: ${message} (${code}).`,
    {
      details,
      cause: error,
    },
  );
}
