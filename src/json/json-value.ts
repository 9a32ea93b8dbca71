import { LeashError } from "../errors/index.js";

/** A JSON value: what every value that crosses the run loop must be. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

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
export function toJson(value: unknown, what = "the value"): Json {
  if (value === undefined) return null;
  return copy(value, what, "$", new Set());
}

/** Whether a value is JSON as {@link toJson} defines it. Never throws. */
export function isJson(value: unknown): value is Json {
  try {
    if (value === undefined) return false;
    copy(value, "", "$", new Set());
    return true;
  } catch {
    return false;
  }
}

function refuse(what: string, path: string, problem: string): never {
  const where = path === "$" ? "" : ` at ${path}`;
  throw new LeashError("not_json", `Expected ${what} to be JSON, but${where} it holds ${problem}.`, {
    details: { path },
  });
}

function copy(value: unknown, what: string, path: string, seen: Set<object>): Json {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) refuse(what, path, "a string with a lone surrogate");
      return value;
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) refuse(what, path, String(value));
      // Between 2^53 and 1e21 a double prints as plain integer digits, which other languages' parsers
      // read as an exact integer that this double is not; from 1e21 on it prints in exponent form and
      // is read as the float it is (1e30 is fine).
      if (!Number.isSafeInteger(value) && Number.isInteger(value) && Math.abs(value) < 1e21) {
        refuse(what, path, `the integer ${value}, beyond what JSON carries exactly (±(2^53 − 1))`);
      }
      return value;
    case "bigint":
      return refuse(what, path, "a BigInt");
    case "undefined":
      return refuse(what, path, "undefined");
    case "function":
      return refuse(what, path, "a function");
    case "symbol":
      return refuse(what, path, "a symbol");
    case "object":
      break;
  }
  if (value === null) return null;
  const object = value;
  if (seen.has(object)) refuse(what, path, "a cycle");
  seen.add(object);
  try {
    if (Array.isArray(object)) return copyArray(object as unknown[], what, path, seen);
    const prototype: unknown = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
      const kind =
        typeof name === "string" && name !== "" && name !== "Object"
          ? `an instance of ${name}`
          : "an object with a custom prototype";
      refuse(what, path, kind);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) refuse(what, path, "a symbol key");
    const out: JsonObject = {};
    for (const key of Object.keys(object)) {
      if (!key.isWellFormed()) refuse(what, path, "a key with a lone surrogate");
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      const checked = copy(item, what, `${path}.${key}`, seen);
      // Assignment would make a "__proto__" key replace the copy's prototype: that one key is defined
      // as an own data property instead (defineProperty for every key would be slower).
      if (key === "__proto__") {
        Object.defineProperty(out, key, { value: checked, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = checked;
      }
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

function copyArray(array: unknown[], what: string, path: string, seen: Set<object>): Json[] {
  const out: Json[] = new Array<Json>(array.length);
  for (let index = 0; index < array.length; index++) {
    if (!(index in array)) refuse(what, `${path}[${index}]`, "a hole (a sparse array)");
    const item = array[index];
    if (item === undefined) refuse(what, `${path}[${index}]`, "undefined");
    out[index] = copy(item, what, `${path}[${index}]`, seen);
  }
  return out;
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
