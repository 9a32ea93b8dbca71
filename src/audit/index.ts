export { makeRecord, recordDigest, type AuditHead, type AuditRecord } from "./audit-record.js";
export type { AuditSink } from "./audit-sink.js";
export { MemoryAuditSink } from "./memory-audit-sink.js";
export { JsonlAuditSink, type FsyncMode } from "./jsonl-audit-sink.js";
export {
  parseAuditRecord,
  readAudit,
  readAuditPrefix,
  repairAudit,
  type AuditPrefix,
  type TornTail,
} from "./read-audit.js";
export { verifyAudit, type AuditProblem, type AuditProblemKind } from "./verify-audit.js";
