import { LeashError } from "../errors/index.js";
import type { AuditRecord } from "./audit-record.js";
import { isMadeRecord } from "./audit-record.js";
import type { SyncReadableAuditSink } from "./audit-sink.js";
import { parseAuditRecord } from "./read-audit.js";

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

/**
 * @internal Checks the records given to a sink's `append` and returns fresh copies of them (holding the
 * same `data`), or throws `audit_corrupt` naming the first that is not a well-formed record.
 */
export function checkRecords(records: readonly AuditRecord[]): AuditRecord[] {
  if (!Array.isArray(records)) {
    throw new LeashError("audit_corrupt", "Expected the records to append to be an array of audit records.");
  }
  const checked: AuditRecord[] = [];
  for (let index = 0; index < records.length; index++) {
    const given: unknown = records[index];
    if (isMadeRecord(given)) {
      checked.push(given as AuditRecord);
      continue;
    }
    const record = parseAuditRecord(given);
    if (typeof record === "string") {
      throw new LeashError(
        "audit_corrupt",
        `Expected record ${index} of those to append to be an audit record, but ${record}; nothing was appended.`,
        { details: { index } },
      );
    }
    checked.push(record);
  }
  return checked;
}
