import { toJson } from "./json-value.js";

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a value: sorted keys, no white space, ECMAScript
 * number formatting, minimal string escapes. The value is checked first with {@link toJson}: a digest
 * must never cover a value other than the one given (NaN, `undefined` in an array, an object with
 * `toJSON`, a lone surrogate are refused there, not coerced).
 */
export function canonicalJson(value: unknown, what = "the value"): string {
  return canonicalOfJson(toJson(value, what));
}

/**
 * The RFC 8785 form of a value already checked by `toJson` (no second check). JSON.stringify gives
 * exactly RFC 8785's forms for what a checked value holds: numbers by ECMAScript's Number-to-String
 * (`-0` as `0`), strings with the minimal escapes and lowercase `\u00xx`; keys are ordered by their
 * UTF-16 code units, which is the default sort's order. A property whose value is `undefined` is
 * left out, as JSON.stringify does.
 */
export function canonicalOfJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ",";
      text += canonicalOfJson(value[index]);
    }
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = "{";
  let first = true;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (!first) text += ",";
    first = false;
    text += `${JSON.stringify(key)}:${canonicalOfJson(item)}`;
  }
  return `${text}}`;
}
