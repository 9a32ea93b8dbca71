import canonicalize from "canonicalize";
import { toJson } from "./json-value.js";

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a value: sorted keys, no white space, ECMAScript
 * number formatting, minimal string escapes. The value is checked first with {@link toJson}, because
 * the `canonicalize` package silently coerces several values that are not JSON (undefined in arrays,
 * objects with `toJSON`), and a digest must never cover a value other than the one given.
 */
export function canonicalJson(value: unknown, what = "the value"): string {
  return canonicalOfJson(toJson(value, what));
}

/** The RFC 8785 form of a value already checked by `toJson` (no second check). */
export function canonicalOfJson(value: unknown): string {
  const text = canonicalize(value);
  // canonicalize returns undefined only for undefined input, which toJson never yields.
  return text ?? "null";
}
