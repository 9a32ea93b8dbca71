import type { ErrorCode } from "./error-codes.js";

// A registry symbol, not a module-local one: two copies of leash in one process (a library and the app
// each bundling their own) still recognise each other's errors.
const MARKER = Symbol.for("leash.error");

/** Details attached to an error: plain data that fits in an audit record. */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/**
 * The one error class of leash: every failure it reports carries a `code` from a closed list.
 *
 * @example
 * try { tool({ name: "has space", execute: () => 1 }) }
 * catch (error) { if (isLeashError(error, "invalid_tool")) console.log(error.message) }
 */
export class LeashError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: { details?: ErrorDetails; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
    Object.defineProperty(this, MARKER, { value: true, enumerable: false });
  }

  /** A plain-JSON form that fits in an audit record. */
  toJSON(): { name: string; code: ErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** A refusal of a run or a resume: the state asked for does not allow it. Nothing was changed. */
export class StateError extends LeashError {}

/**
 * Whether a value is a {@link LeashError} (from any copy of leash), optionally with a given code.
 */
export function isLeashError(value: unknown, code?: ErrorCode): value is LeashError {
  if (typeof value !== "object" || value === null) return false;
  if ((value as Record<symbol, unknown>)[MARKER] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}

/** Turns anything thrown into a one-line message, for failures recorded in a state or a trail. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Marks a branch that the type checker proves unreachable. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
