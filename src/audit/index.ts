export { AUDIT_RECORD_VERSION, makeRecord, recordDigest, type AuditHead, type AuditRecord } from "./audit-record.js";
export type { AuditSink, SyncReadableAuditSink } from "./audit-sink.js";
export { MemoryAuditSink } from "./memory-audit-sink.js";
export { JsonlAuditSink, type FsyncMode, type JsonlAuditSinkOptions } from "./jsonl-audit-sink.js";
export {
  parseAuditRecord,
  readAudit,
  readAuditPrefix,
  repairAudit,
  type AuditPrefix,
  type TornTail,
} from "./read-audit.js";
export { verifyAudit, type AuditProblem, type AuditProblemKind, type VerifyAuditOptions } from "./verify-audit.js";
