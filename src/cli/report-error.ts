import { inspect } from "node:util";
import { isLeashError } from "../index.js";
import type { ErrorCode } from "../index.js";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "./cli-error.js";

/**
 * Leash codes that mean the work itself failed (a disk, a database, a broken sink), not that the
 * command was given something it cannot act on: they exit 1, like a failed verification.
 */
const FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "store_failed",
  "audit_failed",
  "model_failed",
  "guard_failed",
]);

/** What the process prints and how it ends for an error. */
export interface ErrorReport {
  /** One line: `leash: <message> (<code>)`. */
  line: string;
  exitCode: number;
}

/** One line of text: a message that spans lines is joined, so the error stays one line on stderr. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Turns anything thrown by a command into its one-line report and exit status: 2 for what the
 * command was given (a usage error, an unknown run, a run that waits for nothing), 1 for a failure
 * while working. A stack trace is never shown unless `LEASH_DEBUG=1`.
 */
export function reportOf(error: unknown): ErrorReport {
  if (error instanceof CliError)
    return { line: `leash: ${oneLine(error.message)} (${error.code})`, exitCode: error.exitCode };
  if (isLeashError(error)) {
    return {
      line: `leash: ${oneLine(error.message)} (${error.code})`,
      exitCode: FAILURE_CODES.has(error.code) ? EXIT_FAILURE : EXIT_USAGE,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { line: `leash: ${oneLine(message)} (internal_error)`, exitCode: EXIT_FAILURE };
}

/** Whether the user asked to see stack traces (`LEASH_DEBUG=1`). */
export function debugging(): boolean {
  const value = process.env.LEASH_DEBUG;
  return value !== undefined && value !== "" && value !== "0";
}

/** The stack of an error and of its causes, for `LEASH_DEBUG=1`. */
export function stackOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    parts.push(current instanceof Error ? (current.stack ?? current.message) : inspect(current));
    current = current instanceof Error ? current.cause : undefined;
    if (current !== undefined) parts.push("caused by:");
  }
  return parts.join("\n");
}
