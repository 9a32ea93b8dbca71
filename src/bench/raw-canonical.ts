import type { AuditRecord } from "../index.js";

// Plain JavaScript on purpose, not the core's own helpers: the shipped benchmark uses leash through
// its public API only. For the well-formed strings of a sound trail, JSON.stringify is RFC 8785's
// string form, and the default sort orders keys by UTF-16 code units, as RFC 8785 does.
const quote = (text: string): string => JSON.stringify(text);

/** An object's keys in UTF-16 code unit order. */
function sortedKeys(object: object): string[] {
  return Object.keys(object).sort();
}

/**
 * The text an audit record's digest covers (its RFC 8785 form without `digest`), built from the
 * record's known keys in their canonical order, with no check at all.
 */
export function rawCanonicalRecord(record: AuditRecord): string {
  const prev = record.prev === null ? "null" : quote(record.prev);
  return `{"at":${quote(record.at)},"data":${rawCanonicalJson(record.data)},"event":${quote(record.event)},"prev":${prev},"run":${quote(record.run)},"seq":${record.seq},"v":${record.v}}`;
}

/**
 * The RFC 8785 form of a value known to be JSON, with no check at all: sorted keys, no white space,
 * ECMAScript number formatting. A reference for the overhead benchmark, the least work any verifier
 * must do per record before hashing it; the core's canonical JSON checks its input, this does not.
 */
function rawCanonicalJson(value: unknown): string {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let text = "[";
        for (let index = 0; index < value.length; index++)
          text += (index === 0 ? "" : ",") + rawCanonicalJson(value[index]);
        return `${text}]`;
      }
      let text = "{";
      for (const key of sortedKeys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        text += (text.length === 1 ? "" : ",") + quote(key) + ":" + rawCanonicalJson(item);
      }
      return `${text}}`;
    }
    case "undefined":
    case "bigint":
    case "function":
    case "symbol":
      // Not JSON; the records this serializes hold none.
      return "null";
  }
}
