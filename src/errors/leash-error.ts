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
 * Never throws, whatever the value (a revoked Proxy, a getter that throws).
 */
export function isLeashError(value: unknown, code?: ErrorCode): value is LeashError {
  if (typeof value !== "object" || value === null) return false;
  try {
    if ((value as Record<symbol, unknown>)[MARKER] !== true) return false;
    return code === undefined || (value as { code?: unknown }).code === code;
  } catch {
    return false;
  }
}

/** The longest text {@link messageOf} gives, in UTF-16 code units (longer text is cut, with "…"). */
export const MAX_MESSAGE_LENGTH = 4_000;

function describe(error: unknown): string {
  if (typeof error === "string") return error;
  if (typeof error === "symbol" || typeof error === "bigint") return String(error);
  if (error instanceof Error) {
    // Read once: a getter may answer differently, or throw, on every read.
    const message: unknown = error.message;
    if (typeof message === "string") return message;
    return `an Error whose message is ${typeof message === "symbol" ? String(message) : `a ${typeof message}`}`;
  }
  try {
    const json = JSON.stringify(error);
    if (json !== undefined) return json;
  } catch {
    // Fall through to String().
  }
  return String(error);
}

/**
 * Turns anything thrown into a message, for failures recorded in a state or a trail. Total: it never
 * throws (a revoked Proxy, an Error whose `message` getter throws or is not a string, an object whose
 * `toJSON` and `toString` throw), and its text is always well-formed UTF-16 (a lone surrogate becomes
 * U+FFFD) and at most {@link MAX_MESSAGE_LENGTH} code units.
 */
export function messageOf(error: unknown): string {
  let text: string;
  try {
    text = describe(error);
  } catch {
    text = `an unreadable thrown value (${typeof error})`;
  }
  if (text === "") text = `an empty message (${typeof error})`;
  if (text.length > MAX_MESSAGE_LENGTH) text = `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
  return text.toWellFormed();
}

/** Marks a branch that the type checker proves unreachable. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
