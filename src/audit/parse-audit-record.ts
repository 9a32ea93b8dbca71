// The shape check of an audit record, and the single-pass RFC 8785 walk that verification shares.
import { messageOf } from "../errors/index.js";
import { isDigest, sortKeys } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { AuditRecord } from "./audit-record.js";

/**
 * @internal The fields of a record checked by {@link inspectAuditRecord}, with the canonical JSON
 * (RFC 8785) of the record without `digest`: the text its digest covers. One object is filled again for
 * each record, so that verifying a trail allocates no copy of each record.
 */
export interface InspectedRecord {
  run: string;
  seq: number;
  at: string;
  event: string;
  data: Json;
  prev: string | null;
  digest: string;
  canonical: string;
}

const RECORD_KEYS = ["v", "run", "seq", "at", "event", "data", "prev", "digest"] as const;
const ancestors: object[] = [];

class NotJson extends Error {}

/**
 * Checks that a value is a well-formed audit record and returns a fresh copy of its eight fields, or a
 * string naming the first problem found. Never throws.
 *
 * Well-formed: a plain object with exactly the keys `v` (1), `run` (a non-empty string), `seq` (a
 * non-negative safe integer), `at` (a string), `event` (a non-empty string), `data` (JSON, as `toJson`
 * defines it), `prev` (null or 64 lowercase hex digits) and `digest` (64 lowercase hex digits). Whether
 * the digest matches is for `verifyAudit` to say.
 *
 * @example
 * const record = parseAuditRecord(JSON.parse(line));
 * if (typeof record === "string") console.log(`not a record: ${record}`);
 */
export function parseAuditRecord(value: unknown): AuditRecord | string {
  const problem = checkRecord(value, false, scratch);
  if (problem !== null) return problem;
  const { run, seq, at, event, data, prev, digest } = scratch;
  return { v: 1, run, seq, at, event, data, prev, digest };
}

/**
 * @internal {@link parseAuditRecord} that fills `into` with the record's fields and, from the same walk,
 * the canonical JSON that its digest covers, so that a verifier canonicalizes each record once. Returns
 * the problem, or null when the record is well-formed.
 */
export function inspectAuditRecord(value: unknown, into: InspectedRecord): string | null {
  return checkRecord(value, true, into);
}

/** @internal A fresh object for {@link inspectAuditRecord} to fill. */
export function emptyInspectedRecord(): InspectedRecord {
  return { run: "", seq: 0, at: "", event: "", data: null, prev: null, digest: "", canonical: "" };
}

const scratch = emptyInspectedRecord();

function checkRecord(value: unknown, build: boolean, into: InspectedRecord): string | null {
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "it is not an object";
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return "it is not a plain object";
    let v: unknown,
      run: unknown,
      seq: unknown,
      at: unknown,
      event: unknown,
      data: unknown,
      prev: unknown,
      digest: unknown;
    let count = 0;
    // One for-in reads the keys and their values together: each field is read once (a getter cannot
    // show the check one value and the copy another), and it stays fast for objects that each have a
    // hidden class of their own, where reading eight named properties would miss every inline cache.
    for (const key in value) {
      const field: unknown = (value as Record<string, unknown>)[key];
      switch (key) {
        case "v":
          v = field;
          break;
        case "run":
          run = field;
          break;
        case "seq":
          seq = field;
          break;
        case "at":
          at = field;
          break;
        case "event":
          event = field;
          break;
        case "data":
          data = field;
          break;
        case "prev":
          prev = field;
          break;
        case "digest":
          digest = field;
          break;
        default:
          return `it has an unknown key ${JSON.stringify(key)}`;
      }
      count++;
    }
    if (count !== RECORD_KEYS.length) {
      for (const key of RECORD_KEYS) if (!Object.hasOwn(value, key)) return `it has no \`${key}\``;
    }
    if (v !== 1) return "its `v` is not 1";
    if (!isText(run) || run === "") return "its `run` is not a non-empty string";
    if (!Number.isSafeInteger(seq) || (seq as number) < 0) return "its `seq` is not a non-negative safe integer";
    if (!isText(at)) return "its `at` is not a string";
    if (!isText(event) || event === "") return "its `event` is not a non-empty string";
    if (prev !== null && !isDigest(prev)) return "its `prev` is neither null nor 64 lowercase hex digits";
    if (!isDigest(digest)) return "its `digest` is not 64 lowercase hex digits";
    let canonicalData: string;
    try {
      ancestors.length = 0;
      canonicalData = walk(data, build);
    } catch (error) {
      if (error instanceof NotJson) return `its \`data\` is not JSON: it holds ${error.message}`;
      if (error instanceof RangeError) return "its `data` is nested too deeply";
      throw error;
    }
    into.run = run;
    into.seq = seq as number;
    into.at = at;
    into.event = event;
    into.data = data as Json;
    into.prev = prev;
    into.digest = digest;
    // The keys of the record without `digest`, in RFC 8785 order (all ASCII, so code-unit order is plain).
    into.canonical = build
      ? '{"at":' +
        quote(at) +
        ',"data":' +
        canonicalData +
        ',"event":' +
        quote(event) +
        ',"prev":' +
        (prev === null ? "null" : '"' + prev + '"') +
        ',"run":' +
        quote(run) +
        ',"seq":' +
        String(seq) +
        ',"v":1}'
      : "";
    return null;
  } catch (error) {
    return `it could not be read (${safeMessage(error)})`;
  }
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value.isWellFormed();
}

// A string with nothing to escape is quoted as it is; JSON.stringify, which RFC 8785 uses for strings,
// escapes only these characters (and lone surrogates, refused before this).
// eslint-disable-next-line no-control-regex -- the control characters are what must be escaped.
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** @internal A string in RFC 8785 form: quoted as it is when nothing needs escaping. */
function quote(text: string): string {
  return PLAIN.test(text) ? '"' + text + '"' : JSON.stringify(text);
}

/**
 * Checks a value against the rules of `toJson` and, when `build` is set, returns its RFC 8785 form,
 * which must equal what `canonicalJson` gives (a test holds the two together). One walk does both so
 * that verifying a record costs one canonicalization.
 */
function walk(value: unknown, build: boolean): string {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw new NotJson("a string with a lone surrogate");
      return build ? quote(value) : "";
    case "number":
      if (!Number.isFinite(value)) throw new NotJson(String(value));
      if (Number.isInteger(value) && !Number.isSafeInteger(value) && Math.abs(value) < 1e21) {
        throw new NotJson(`the integer ${value}, beyond what JSON carries exactly`);
      }
      return build ? String(value) : "";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? walkArray(value as unknown[], build) : walkObject(value, build);
    case "undefined":
      throw new NotJson("undefined");
    case "bigint":
    case "function":
    case "symbol":
      throw new NotJson(`a ${typeof value}`);
  }
}

function walkArray(array: unknown[], build: boolean): string {
  if (ancestors.includes(array)) throw new NotJson("a cycle");
  ancestors.push(array);
  let text = "[";
  for (let index = 0; index < array.length; index++) {
    if (!(index in array)) throw new NotJson("a hole (a sparse array)");
    const item = array[index];
    if (item === undefined) throw new NotJson("undefined in an array");
    const part = walk(item, build);
    if (build) text += index === 0 ? part : "," + part;
  }
  ancestors.pop();
  return text + "]";
}

function walkObject(object: object, build: boolean): string {
  if (ancestors.includes(object)) throw new NotJson("a cycle");
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) throw new NotJson("an object that is not plain");
  // Symbol keys are not JSON; a verifier (build) skips this check, since they are never part of what a
  // digest covers (canonical JSON and JSON.stringify both leave them out).
  if (!build && Object.getOwnPropertySymbols(object).length > 0) throw new NotJson("a symbol key");
  ancestors.push(object);
  const keys = Object.keys(object);
  if (build && keys.length > 1) sortKeys(keys);
  let text = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (!key.isWellFormed()) throw new NotJson("a key with a lone surrogate");
    const item = (object as Record<string, unknown>)[key];
    // As toJson and JSON.stringify do: a property whose value is undefined is left out.
    if (item === undefined) continue;
    const part = walk(item, build);
    if (build) text += (text.length === 1 ? "" : ",") + quote(key) + ":" + part;
  }
  ancestors.pop();
  return text + "}";
}

/** @internal A message for anything thrown, that never throws itself (a getter on `message` may). */
export function safeMessage(error: unknown): string {
  try {
    return messageOf(error);
  } catch {
    return "an error that could not be read";
  }
}
