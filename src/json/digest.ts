import { hash } from "node:crypto";
import { canonicalJson, canonicalOfJson } from "./canonical-json.js";

/** SHA-256 of a UTF-8 string, as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  // The one-shot hash() (Node 20.12+) skips the Hash object createHash() builds: half the time for
  // the short texts of records and digests.
  return hash("sha256", text, "hex");
}

/**
 * SHA-256 over the canonical JSON of a value. Callers pass a value that begins with a versioned
 * domain tag (e.g. `["leash.approval/1", ...]`) so that digests made for one purpose can never be
 * replayed as digests of another, and fields are never joined with a delimiter that data could hold.
 */
export function digestOf(value: unknown, what = "the value"): string {
  return sha256Hex(canonicalJson(value, what));
}

/** {@link digestOf} for a value already checked by `toJson`. */
export function digestOfJson(value: unknown): string {
  return sha256Hex(canonicalOfJson(value));
}

/** Whether a string is a SHA-256 hex digest (64 lowercase hex digits). */
export function isDigest(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
