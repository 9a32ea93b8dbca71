import type { Json } from "../json/index.js";
import { canonicalOfJson, MAX_RECORD_DEPTH, sha256Hex, toSortedJson } from "../json/index.js";

/** The version of the audit record format. */
export const AUDIT_RECORD_VERSION = 1;

/**
 * One record of the audit trail. Each run's records form one hash chain: `seq` counts from 0, `prev`
 * is the digest of the run's record before it (`null` at 0) and `digest` is SHA-256 over the
 * canonical JSON of the record without `digest`.
 */
export interface AuditRecord {
  v: 1;
  run: string;
  seq: number;
  at: string;
  event: string;
  data: Json;
  prev: string | null;
  digest: string;
}

/** The last record of a run's chain: where the next record links to. */
export interface AuditHead {
  seq: number;
  digest: string;
}

/** The digest a record should carry: SHA-256 over its canonical JSON without `digest`. */
export function recordDigest(record: Omit<AuditRecord, "digest"> | AuditRecord): string {
  const { v, run, seq, at, event, data, prev } = record;
  return sha256Hex(recordCanonical(v, run, seq, at, event, data, prev));
}

/**
 * The canonical JSON (RFC 8785) of a record without its digest, written out in its one key order
 * (at, data, event, prev, run, seq, v): the same text `canonicalOfJson` gives for the object, without
 * sorting seven keys for every record. Fields that are not what a record holds go through the
 * general form, so a malformed record is digested as it is and fails verification. `dataText` is the
 * canonical text of `data` when the caller has it already.
 */
function recordCanonical(
  v: unknown,
  run: unknown,
  seq: unknown,
  at: unknown,
  event: unknown,
  data: unknown,
  prev: unknown,
  dataText?: string,
): string {
  if (
    v !== AUDIT_RECORD_VERSION ||
    typeof run !== "string" ||
    !Number.isSafeInteger(seq) ||
    typeof at !== "string" ||
    typeof event !== "string" ||
    (prev !== null && typeof prev !== "string")
  ) {
    return canonicalOfJson({ v, run, seq, at, event, data, prev });
  }
  const previous = prev === null ? "null" : JSON.stringify(prev);
  return `{"at":${JSON.stringify(at)},"data":${dataText ?? canonicalOfJson(data)},"event":${JSON.stringify(event)},"prev":${previous},"run":${JSON.stringify(run)},"seq":${String(seq)},"v":${AUDIT_RECORD_VERSION}}`;
}

/**
 * Builds the next record of a run's chain. `data` is checked to be JSON first (`not_json`), so a
 * value that cannot be recorded faithfully is refused before anything is written.
 */
export function makeRecord(run: string, head: AuditHead | null, event: string, data: unknown, at: string): AuditRecord {
  const seq = head === null ? 0 : head.seq + 1;
  const prev = head === null ? null : head.digest;
  // The data is copied with its keys in canonical order, so that the native writer gives its canonical
  // text at once (a polluted prototype's `toJSON` would be called by it: then the general form).
  const { json: checked, canonical } = toSortedJson(data, `the data of audit event \`${event}\``, {
    maxDepth: MAX_RECORD_DEPTH,
  });
  const dataText =
    canonical && !("toJSON" in Object.prototype) && !("toJSON" in Array.prototype)
      ? JSON.stringify(checked)
      : undefined;
  const digest = sha256Hex(recordCanonical(AUDIT_RECORD_VERSION, run, seq, at, event, checked, prev, dataText));
  // One literal with the fields in a fixed order: every record shares one hidden class, which keeps
  // reading them (verification, sinks) fast.
  const record: AuditRecord = { v: AUDIT_RECORD_VERSION, run, seq, at, event, data: checked, prev, digest };
  made.add(Object.freeze(record));
  return record;
}

// Records made by makeRecord are well formed by construction and frozen; sinks skip re-checking them.
const made = new WeakSet<AuditRecord>();

/** Whether a record was made by {@link makeRecord} in this process (so its shape needs no check). */
export function isMadeRecord(record: unknown): boolean {
  return typeof record === "object" && record !== null && made.has(record as AuditRecord);
}
