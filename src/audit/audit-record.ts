import type { Json } from "../json/index.js";
import { digestOfJson, MAX_RECORD_DEPTH, toJson } from "../json/index.js";

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
  return digestOfJson({ v, run, seq, at, event, data, prev });
}

/**
 * Builds the next record of a run's chain. `data` is checked to be JSON first (`not_json`), so a
 * value that cannot be recorded faithfully is refused before anything is written.
 */
export function makeRecord(run: string, head: AuditHead | null, event: string, data: unknown, at: string): AuditRecord {
  const seq = head === null ? 0 : head.seq + 1;
  const prev = head === null ? null : head.digest;
  const checked = toJson(data, `the data of audit event \`${event}\``, { maxDepth: MAX_RECORD_DEPTH });
  const digest = digestOfJson({ v: AUDIT_RECORD_VERSION, run, seq, at, event, data: checked, prev });
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
