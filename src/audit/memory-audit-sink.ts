import type { AuditRecord } from "./audit-record.js";
import type { SyncReadableAuditSink } from "./audit-sink.js";
import { checkRecords } from "./check-records.js";

/**
 * An audit sink that holds its records in memory: the default sink of an agent, and the one for tests.
 *
 * @example
 * const sink = new MemoryAuditSink();
 * const agent = new Agent({ tools, planner, audit: sink });
 * await agent.run("Find the page about spans.");
 * console.log(verifyAudit(sink.records)); // []
 */
export class MemoryAuditSink implements SyncReadableAuditSink {
  readonly #all: AuditRecord[] = [];
  // Kept beside the full list so that reading one run (which the core does at the start of every run)
  // costs that run's records, not the whole trail.
  readonly #byRun = new Map<string, AuditRecord[]>();

  /**
   * Appends records in order. Every record is checked first (`audit_corrupt` names the first that is not
   * a well-formed record), so a call adds all of its records or none.
   */
  append(records: readonly AuditRecord[]): void {
    const checked = checkRecords(records);
    for (const record of checked) {
      this.#all.push(record);
      const run = this.#byRun.get(record.run);
      if (run === undefined) this.#byRun.set(record.run, [record]);
      else run.push(record);
    }
  }

  /** A fresh array of every record held, in the order they were appended. */
  get records(): AuditRecord[] {
    return this.#all.slice();
  }

  /**
   * One run's records in the order they were appended (seq order, for a sound trail), or every record
   * when no run id is given (each run's in order, the runs interleaved as they were appended).
   */
  read(runId?: string): Promise<AuditRecord[]> {
    if (runId === undefined) return Promise.resolve(this.#all.slice());
    return Promise.resolve(this.#byRun.get(runId)?.slice() ?? []);
  }
}
