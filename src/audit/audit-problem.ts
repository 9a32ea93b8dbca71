/**
 * What kind of problem `verifyAudit` found. `digest_mismatch` is a store's, never
 * `verifyAudit`'s: a row whose `digest` column is not the digest in its record's text.
 */
export type AuditProblemKind =
  | "changed"
  | "missing"
  | "reordered"
  | "duplicate"
  | "broken_link"
  | "bad_start"
  | "malformed"
  | "truncated"
  | "digest_mismatch";

/** One problem of an audit trail, naming the run and seq where it was found when they are known. */
export interface AuditProblem {
  run: string | null;
  seq: number | null;
  problem: AuditProblemKind;
  message: string;
}
