import { toJson } from "./json-value.js";
import { sortKeys } from "./sort-keys.js";

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a value: sorted keys, no white space, ECMAScript
 * number formatting, minimal string escapes. The value is checked first with {@link toJson}: a digest
 * must never cover a value other than the one given (NaN, `undefined` in an array, an object with
 * `toJSON`, a lone surrogate are refused there, not coerced).
 */
export function canonicalJson(value: unknown, what = "the value"): string {
  return canonicalOfJson(toJson(value, what));
}

/** How deep {@link isStringifiedCanonically} looks before it leaves a value to the general form. */
const FAST_DEPTH = 64;

/**
 * Whether `JSON.stringify` gives a value's RFC 8785 form as it is: only strings, numbers, booleans,
 * null, arrays and plain objects whose keys are listed in RFC 8785's order already (ascending UTF-16
 * code units), and no `undefined` anywhere. Reading keys and types costs a fraction of writing the text
 * in JavaScript, and the native writer is several times faster than this module's.
 */
function isStringifiedCanonically(value: unknown, depth: number): boolean {
  if (typeof value !== "object")
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
  if (value === null) return true;
  if (depth > FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!isStringifiedCanonically(value[index], depth + 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const keys = Object.keys(value);
  let previous = "";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    // Object.keys lists the keys in the order JSON.stringify writes them (array indices first, in
    // numeric order): that order must be RFC 8785's. A `toJSON` function would be called by it.
    if ((index > 0 && !(previous < key)) || key === "toJSON") return false;
    previous = key;
  }
  for (let index = 0; index < keys.length; index++) {
    if (!isStringifiedCanonically((value as Record<string, unknown>)[keys[index] as string], depth + 1)) return false;
  }
  return true;
}

/**
 * The RFC 8785 form of a value already checked by `toJson` (no second check). JSON.stringify gives
 * exactly RFC 8785's forms for what a checked value holds: numbers by ECMAScript's Number-to-String
 * (`-0` as `0`), strings with the minimal escapes and lowercase `\u00xx`; keys are ordered by their
 * UTF-16 code units, which is the default sort's order. A property whose value is `undefined` is
 * left out, as JSON.stringify does. A value whose keys are all in that order already (an audit
 * record's data, copied so) is written by JSON.stringify whole, several times faster.
 */
export function canonicalOfJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  // JSON.stringify would call a `toJSON` added to the prototypes (a polluted Object.prototype).
  if (!("toJSON" in Object.prototype) && !("toJSON" in Array.prototype) && isStringifiedCanonically(value, 0))
    return JSON.stringify(value);
  // Asked once, for the whole value: asking again at every level would read a deep value over and over.
  return keyByKey(value);
}

/** The RFC 8785 form written out key by key, with the keys of each object sorted. */
function keyByKey(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ",";
      text += keyByKey(value[index]);
    }
    return `${text}]`;
  }
  const keys = sortKeys(Object.keys(value));
  let text = "{";
  let first = true;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (!first) text += ",";
    first = false;
    text += `${JSON.stringify(key)}:${keyByKey(item)}`;
  }
  return `${text}}`;
}
