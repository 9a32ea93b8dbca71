import { isLeashError, LeashError, StateError } from "../../errors/index.js";

/** What a store was doing when the driver failed, for the message and the mapping of `SQLITE_BUSY`. */
export interface SqliteOperation {
  /** The store method, e.g. `save`. */
  method: string;
  /** The database file. */
  path: string;
  /** The run concerned, when there is one. */
  runId?: string;
  /**
   * Whether the operation is a compare-and-set on a run (a save or a claim): a lock not obtained in
   * time then means another process holds the run, which the caller handles as `stale_state`.
   */
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
 * leash errors pass unchanged; `SQLITE_BUSY` in a compare-and-set is `stale_state` (another process
 * holds the run: the same answer a lost race gets); any other driver error is `store_failed`, with the
 * driver's error as its cause.
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
  if (operation.compareAndSet === true && isBusy(error)) {
    return new StateError(
      "stale_state",
      `The ${operation.method}${about} could not lock \`${operation.path}\` within the busy timeout: another process is writing the run.`,
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
