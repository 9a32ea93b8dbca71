import { LeashError, messageOf } from "../errors/index.js";

/** A JSON value: what every value that crosses the run loop must be. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/**
 * How deep JSON may nest: arrays and objects inside one another at most this many levels. Deeper
 * values are refused by {@link toJson} (`not_json`), so that nothing is stored that a parser (SQLite's
 * `json_extract`, a recursive reader, another language) could not read back.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * How deep the containers the run loop wraps values in may nest: audit records, saved states and
 * model messages hold values of up to {@link MAX_JSON_DEPTH} levels inside a few levels of their own.
 */
export const MAX_RECORD_DEPTH = MAX_JSON_DEPTH + 32;

/** Bounds for {@link toJson} beyond the JSON rules. */
export interface ToJsonOptions {
  /**
   * The largest size allowed, in characters of `JSON.stringify` text. Counting stops as soon as the
   * value is over, so a huge value is refused without being copied or turned into text.
   */
  maxSize?: number;
  /** How deep the value may nest; default {@link MAX_JSON_DEPTH}. */
  maxDepth?: number;
}

/** Why a value was refused, in `details.reason` of the `not_json` error. */
export type NotJsonReason = "not_json" | "too_deep" | "too_large";

/**
 * Checks that a value is JSON and returns a deep, fresh copy of it.
 *
 * A top-level `undefined` becomes `null` and an object property whose value is `undefined` is left
 * out, as `JSON.stringify` does. Anything else that is not JSON is refused with `not_json` rather
 * than coerced: NaN, Infinity, BigInt, an integer beyond ±(2^53 − 1) written as plain digits (below
 * 1e21; it would not survive a round trip through other languages' parsers), `undefined` in an array, a sparse array,
 * functions, symbols, objects that are not plain (Map, Set, Date, class instances), cycles and lone
 * surrogates in strings or keys.
 *
 * @param what names the value in the error message, e.g. "the result of tool `lookup`".
 */
export function toJson(value: unknown, what = "the value", options: ToJsonOptions = {}): Json {
  if (value === undefined) return null;
  const walk = new Walk(what, options.maxSize ?? Number.POSITIVE_INFINITY, options.maxDepth ?? MAX_JSON_DEPTH);
  try {
    return walk.copy(value, "$", 0);
  } catch (error) {
    if (error instanceof LeashError) throw error;
    // A revoked Proxy, a getter that throws, a trap that lies: whatever the value does while being
    // read is a refusal of the value, never a raw error.
    return walk.refuse("$", `something that could not be read (${messageOf(error)})`);
  }
}

/** Whether a value is JSON as {@link toJson} defines it. Never throws. */
export function isJson(value: unknown, options: { maxDepth?: number } = {}): value is Json {
  try {
    if (value === undefined) return false;
    new Walk("", Number.POSITIVE_INFINITY, options.maxDepth ?? MAX_JSON_DEPTH).copy(value, "$", 0);
    return true;
  } catch {
    return false;
  }
}

// Characters that JSON.stringify writes as an escape: two characters, or six for \u00XX.
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const ESCAPED = /["\\\u0000-\u001f]/g;
const SHORT_ESCAPES = new Set(['"', "\\", "\b", "\f", "\n", "\r", "\t"]);

function quotedLength(text: string): number {
  let length = text.length + 2;
  ESCAPED.lastIndex = 0;
  if (!ESCAPED.test(text)) return length;
  ESCAPED.lastIndex = 0;
  for (const match of text.matchAll(ESCAPED)) length += SHORT_ESCAPES.has(match[0]) ? 1 : 5;
  return length;
}

// One check of one value: the cycle guard, and the running size when a bound is set.
class Walk {
  readonly #seen = new Set<object>();
  #size = 0;

  constructor(
    readonly what: string,
    readonly maxSize: number,
    readonly maxDepth: number,
  ) {}

  refuse(path: string, problem: string, reason: NotJsonReason = "not_json"): never {
    // A path deep down is long: the message keeps its two ends, the details keep all of it.
    const short = path.length > 100 ? `${path.slice(0, 40)}…${path.slice(-40)}` : path;
    const where = path === "$" ? "" : ` at ${short}`;
    throw new LeashError("not_json", `Expected ${this.what} to be JSON, but${where} it holds ${problem}.`, {
      details: { path, reason },
    });
  }

  #grow(by: number, path: string): void {
    this.#size += by;
    if (this.#size > this.maxSize) {
      throw new LeashError(
        "not_json",
        `Expected ${this.what} to be at most ${this.maxSize} characters of JSON, but it is longer.`,
        { details: { path, reason: "too_large", maxSize: this.maxSize } },
      );
    }
  }

  copy(value: unknown, path: string, depth: number): Json {
    switch (typeof value) {
      case "string":
        if (!value.isWellFormed()) this.refuse(path, "a string with a lone surrogate");
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(quotedLength(value), path);
        return value;
      case "boolean":
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(value ? 4 : 5, path);
        return value;
      case "number":
        if (!Number.isFinite(value)) this.refuse(path, String(value));
        // Between 2^53 and 1e21 a double prints as plain integer digits, which other languages' parsers
        // read as an exact integer that this double is not; from 1e21 on it prints in exponent form and
        // is read as the float it is (1e30 is fine).
        if (!Number.isSafeInteger(value) && Number.isInteger(value) && Math.abs(value) < 1e21) {
          this.refuse(path, `the integer ${value}, beyond what JSON carries exactly (±(2^53 − 1))`);
        }
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(String(value).length, path);
        return value;
      case "bigint":
        return this.refuse(path, "a BigInt");
      case "undefined":
        return this.refuse(path, "undefined");
      case "function":
        return this.refuse(path, "a function");
      case "symbol":
        return this.refuse(path, "a symbol");
      case "object":
        break;
    }
    if (value === null) {
      if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(4, path);
      return null;
    }
    if (depth >= this.maxDepth) {
      this.refuse(path, `values nested more than ${this.maxDepth} levels deep`, "too_deep");
    }
    const object = value;
    if (this.#seen.has(object)) this.refuse(path, "a cycle");
    this.#seen.add(object);
    try {
      if (Array.isArray(object)) return this.#copyArray(object as unknown[], path, depth + 1);
      return this.#copyObject(object, path, depth + 1);
    } finally {
      this.#seen.delete(object);
    }
  }

  #copyObject(object: object, path: string, depth: number): JsonObject {
    const prototype: unknown = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
      const kind =
        typeof name === "string" && name !== "" && name !== "Object"
          ? `an instance of ${name}`
          : "an object with a custom prototype";
      this.refuse(path, kind);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) this.refuse(path, "a symbol key");
    const bounded = this.maxSize !== Number.POSITIVE_INFINITY;
    if (bounded) this.#grow(2, path);
    const out: JsonObject = {};
    let first = true;
    for (const key of Object.keys(object)) {
      if (!key.isWellFormed()) this.refuse(path, "a key with a lone surrogate");
      // Read once: a getter that answers differently on a second read cannot make the copy differ
      // from what was checked.
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      if (bounded) this.#grow(quotedLength(key) + (first ? 1 : 2), path);
      first = false;
      const checked = this.copy(item, `${path}.${key}`, depth);
      // Assignment would make a "__proto__" key replace the copy's prototype: that one key is defined
      // as an own data property instead (defineProperty for every key would be slower).
      if (key === "__proto__") {
        Object.defineProperty(out, key, { value: checked, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = checked;
      }
    }
    return out;
  }

  #copyArray(array: unknown[], path: string, depth: number): Json[] {
    const length = array.length;
    if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(length === 0 ? 2 : length + 1, path);
    const out: Json[] = [];
    for (let index = 0; index < length; index++) {
      if (!(index in array)) this.refuse(`${path}[${index}]`, "a hole (a sparse array)");
      const item = array[index];
      if (item === undefined) this.refuse(`${path}[${index}]`, "undefined");
      out.push(this.copy(item, `${path}[${index}]`, depth));
    }
    return out;
  }
}

/** Whether a JSON value is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON text like `JSON.parse`, keeping a `__proto__` key as an own property (JSON.parse does
 * too) and refusing what {@link toJson} refuses. Throws `SyntaxError` on text that is not JSON.
 */
export function parseJson(text: string, what = "the text"): Json {
  return toJson(JSON.parse(text) as unknown, what);
}
