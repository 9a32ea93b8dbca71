import type { ErrorCode } from "../errors/index.js";

/**
 * Codes of a store, a sink or a server that failed, was busy or could not be reached: nothing was
 * decided, so trying again may work. The command line exits 3 for them, the inbox answers 503.
 */
const OPERATIONAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "store_failed",
  "store_busy",
  "audit_failed",
  "mcp_unavailable",
]);

/** Whether an error code means an operational failure (see {@link OPERATIONAL_CODES}): try again. */
export function isOperationalCode(code: ErrorCode): boolean {
  return OPERATIONAL_CODES.has(code);
}
