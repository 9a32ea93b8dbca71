import { LeashError, messageOf } from "../errors/index.js";
import { sortKeys } from "./sort-keys.js";

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
  return checkedCopy(
    new Walk(what, options.maxSize ?? Number.POSITIVE_INFINITY, options.maxDepth ?? MAX_JSON_DEPTH, false),
    value,
  );
}

function checkedCopy(walk: Walk, value: unknown): Json {
  try {
    return walk.copy(value, undefined, 0);
  } catch (error) {
    if (error instanceof LeashError) throw error;
    // A revoked Proxy, a getter that throws, a trap that lies: whatever the value does while being
    // read is a refusal of the value, never a raw error.
    return walk.refuse(walk.path(), `something that could not be read (${messageOf(error)})`);
  }
}

/**
 * {@link toJson}, with every object of the copy built with its keys in RFC 8785's order, and whether
 * `JSON.stringify` of the copy is its RFC 8785 form as it is (`canonical`). It is, unless a key holds
 * a digit first or is `toJSON`: an object lists array-index keys before all others whatever the
 * order they were added in, so such a copy is left to the general canonical form. Checking, copying
 * and ordering in one walk lets the native writer make the canonical text of an audit record's data,
 * which no later walk then reads again.
 */
export function toSortedJson(
  value: unknown,
  what: string,
  options: { maxDepth?: number } = {},
): { json: Json; canonical: boolean } {
  if (value === undefined) return { json: null, canonical: true };
  const walk = new Walk(what, Number.POSITIVE_INFINITY, options.maxDepth ?? MAX_JSON_DEPTH, true);
  const json = checkedCopy(walk, value);
  return { json, canonical: !walk.unordered };
}

/** Whether a value is JSON as {@link toJson} defines it. Never throws. */
export function isJson(value: unknown, options: { maxDepth?: number } = {}): value is Json {
  try {
    if (value === undefined) return false;
    new Walk("", Number.POSITIVE_INFINITY, options.maxDepth ?? MAX_JSON_DEPTH, false).copy(value, undefined, 0);
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

// Ancestors deeper than this are also kept in a Set: a scan of the chain of ancestors is cheaper than
// a Set for the shallow values nearly every check sees, and the Set keeps a deep one linear.
const SCANNED_ANCESTORS = 32;

// One check of one value: the cycle guard, the path to where it is, and the running size when a
// bound is set. The path is kept as its parts and written out only for a refusal, so that a value
// that is fine costs no string per property.
class Walk {
  /** The containers being copied, outermost first, and the key or index each child is read at. */
  readonly #ancestors: object[] = [];
  readonly #keys: (string | number)[] = [];
  #deep: Set<object> | undefined;
  #size = 0;
  /** With `sorted`: whether a key may keep the copy's listed order from RFC 8785's (see toSortedJson). */
  unordered = false;

  constructor(
    readonly what: string,
    readonly maxSize: number,
    readonly maxDepth: number,
    /** Whether each object's copy gets its keys in RFC 8785's order. */
    readonly sorted: boolean,
  ) {}

  /** The path of the value at `key` of the innermost container (`undefined`: the container itself). */
  path(key?: string | number): string {
    let path = "$";
    const parts = key === undefined ? this.#keys : [...this.#keys, key];
    for (const part of parts) path += typeof part === "number" ? `[${part}]` : `.${part}`;
    return path;
  }

  refuse(path: string, problem: string, reason: NotJsonReason = "not_json"): never {
    // A path deep down is long: the message keeps its two ends, the details keep all of it.
    const short = path.length > 100 ? `${path.slice(0, 40)}…${path.slice(-40)}` : path;
    const where = path === "$" ? "" : ` at ${short}`;
    throw new LeashError("not_json", `Expected ${this.what} to be JSON, but${where} it holds ${problem}.`, {
      details: { path, reason },
    });
  }

  #grow(by: number, key: string | number | undefined): void {
    this.#size += by;
    if (this.#size > this.maxSize) {
      throw new LeashError(
        "not_json",
        `Expected ${this.what} to be at most ${this.maxSize} characters of JSON, but it is longer.`,
        { details: { path: this.path(key), reason: "too_large", maxSize: this.maxSize } },
      );
    }
  }

  #isAncestor(object: object): boolean {
    const ancestors = this.#ancestors;
    const scanned = Math.min(ancestors.length, SCANNED_ANCESTORS);
    for (let index = 0; index < scanned; index++) if (ancestors[index] === object) return true;
    return this.#deep !== undefined && this.#deep.has(object);
  }

  /** Checks and copies the value at `key` of the innermost container (`undefined`: the top value). */
  copy(value: unknown, key: string | number | undefined, depth: number): Json {
    switch (typeof value) {
      case "string":
        if (!value.isWellFormed()) this.refuse(this.path(key), "a string with a lone surrogate");
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(quotedLength(value), key);
        return value;
      case "boolean":
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(value ? 4 : 5, key);
        return value;
      case "number":
        if (!Number.isFinite(value)) this.refuse(this.path(key), String(value));
        // Between 2^53 and 1e21 a double prints as plain integer digits, which other languages' parsers
        // read as an exact integer that this double is not; from 1e21 on it prints in exponent form and
        // is read as the float it is (1e30 is fine).
        if (!Number.isSafeInteger(value) && Number.isInteger(value) && Math.abs(value) < 1e21) {
          this.refuse(this.path(key), `the integer ${value}, beyond what JSON carries exactly (±(2^53 − 1))`);
        }
        if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(String(value).length, key);
        return value;
      case "bigint":
        return this.refuse(this.path(key), "a BigInt");
      case "undefined":
        return this.refuse(this.path(key), "undefined");
      case "function":
        return this.refuse(this.path(key), "a function");
      case "symbol":
        return this.refuse(this.path(key), "a symbol");
      case "object":
        break;
    }
    if (value === null) {
      if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(4, key);
      return null;
    }
    if (depth >= this.maxDepth) {
      this.refuse(this.path(key), `values nested more than ${this.maxDepth} levels deep`, "too_deep");
    }
    const object = value;
    if (this.#isAncestor(object)) this.refuse(this.path(key), "a cycle");
    const ancestors = this.#ancestors;
    const level = ancestors.length;
    if (key !== undefined) this.#keys.push(key);
    ancestors.push(object);
    if (level >= SCANNED_ANCESTORS) (this.#deep ??= new Set()).add(object);
    try {
      if (Array.isArray(object)) return this.#copyArray(object as unknown[], depth + 1);
      return this.#copyObject(object, depth + 1);
    } finally {
      if (level >= SCANNED_ANCESTORS) this.#deep?.delete(object);
      ancestors.pop();
      if (key !== undefined) this.#keys.pop();
    }
  }

  #copyObject(object: object, depth: number): JsonObject {
    const prototype: unknown = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
      const kind =
        typeof name === "string" && name !== "" && name !== "Object"
          ? `an instance of ${name}`
          : "an object with a custom prototype";
      this.refuse(this.path(), kind);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) this.refuse(this.path(), "a symbol key");
    const bounded = this.maxSize !== Number.POSITIVE_INFINITY;
    if (bounded) this.#grow(2, undefined);
    const out: JsonObject = {};
    let first = true;
    const keys = Object.keys(object);
    if (this.sorted) sortKeys(keys);
    for (const key of keys) {
      if (!key.isWellFormed()) this.refuse(this.path(), "a key with a lone surrogate");
      if (this.sorted && !this.unordered) {
        const code = key.charCodeAt(0);
        if ((code >= 48 && code <= 57) || key === "toJSON") this.unordered = true;
      }
      // Read once: a getter that answers differently on a second read cannot make the copy differ
      // from what was checked.
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      if (bounded) this.#grow(quotedLength(key) + (first ? 1 : 2), undefined);
      first = false;
      const checked = this.copy(item, key, depth);
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

  #copyArray(array: unknown[], depth: number): Json[] {
    const length = array.length;
    if (this.maxSize !== Number.POSITIVE_INFINITY) this.#grow(length === 0 ? 2 : length + 1, undefined);
    const out: Json[] = [];
    for (let index = 0; index < length; index++) {
      if (!(index in array)) this.refuse(this.path(index), "a hole (a sparse array)");
      const item = array[index];
      if (item === undefined) this.refuse(this.path(index), "undefined");
      out.push(this.copy(item, index, depth));
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
