import { inspect } from "node:util";
import { isLeashError } from "../errors/index.js";
import type { ErrorCode } from "../errors/index.js";
import { CliError, EXIT_FAILURE, EXIT_OPERATIONAL, EXIT_USAGE } from "./cli-error.js";
import { escapeText } from "../operate/escape-text.js";
import { isOperationalCode } from "../operate/operational-codes.js";
import { maskPasswords } from "../operate/mask-password.js";
import { jsonText } from "./print.js";

/**
 * Leash codes that mean the work on a run failed (a model, a guard), not that the command was given
 * something it cannot act on: they exit 1.
 */
const WORK_FAILED_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["model_failed", "guard_failed"]);

function exitCodeOf(code: ErrorCode): number {
  if (isOperationalCode(code)) return EXIT_OPERATIONAL;
  return WORK_FAILED_CODES.has(code) ? EXIT_FAILURE : EXIT_USAGE;
}

/** What the process prints and how it ends for an error. */
interface ErrorReport {
  /** The code scripts match on: a leash code, a command-line one, `usage` or `internal_error`. */
  code: string;
  /** The message, on one line (not yet escaped for a terminal). */
  message: string;
  exitCode: number;
}

/** One line of text: a message that spans lines is joined, so the error stays one line on stderr. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Turns anything thrown by a command into its one-line report and exit status: 2 for what the
 * command was given (a usage error, an unknown run, a run that waits for nothing), 1 for a failure
 * while working on a run, 3 for a store that failed or was busy. A stack trace is never shown unless `LEASH_DEBUG=1`.
 */
export function reportOf(error: unknown): ErrorReport {
  if (error instanceof CliError) return { code: error.code, message: oneLine(error.message), exitCode: error.exitCode };
  if (isLeashError(error)) {
    return {
      code: error.code,
      message: oneLine(error.message),
      exitCode: exitCodeOf(error.code),
    };
  }
  return { code: "internal_error", message: oneLine(messageOf(error)), exitCode: EXIT_FAILURE };
}

/** The message of anything thrown, whatever it is: a getter that throws or a value with no text is not an error of its own. */
function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return String(error);
  } catch {
    return "an error that cannot be shown as text";
  }
}

/**
 * The error as the process prints it on stderr: one line `leash: <message> (<code>)`, escaped for a
 * terminal; with `--json`, one JSON document `{ "error": { "code", "message" } }` on one line.
 */
export function errorText(report: Pick<ErrorReport, "code" | "message">, json: boolean): string {
  const message = maskPasswords(report.message);
  if (json) return jsonText({ error: { code: report.code, message } });
  return escapeText(`leash: ${message} (${report.code})`);
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
  return maskPasswords(parts.join("\n")).split("\n").map(escapeText).join("\n");
}
