import type { AuditRecord } from "./audit-record.js";

/**
 * Where audit records go. Several agents (or processes) may share one sink; each run's records form
 * their own chain inside it.
 */
export interface AuditSink {
  /**
   * Appends records, in order. When this resolves the records are as durable as the sink promises;
   * when it throws none of them may be assumed written.
   */
  append(records: readonly AuditRecord[]): void | Promise<void>;
  /** One run's records in `seq` order, or every record (each run's in `seq` order) without a run id. */
  read(runId?: string): Promise<AuditRecord[]>;
}

/** A sink that can also read synchronously (memory, JSONL, SQLite). */
export interface SyncReadableAuditSink extends AuditSink {
  readonly records: AuditRecord[];
}
