import type { AuditRecord } from "./audit-record.js";
import type { SyncReadableAuditSink } from "./audit-sink.js";
import { checkChain } from "./chain-heads.js";
import { checkRecords } from "./check-records.js";

// A sink may hold the rest of a run's trail whose start is kept elsewhere.
const CONTINUES_ELSEWHERE = { continuesElsewhere: true };

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
   * Appends records in order. Every record is checked first, so a call adds all of its records or
   * none: `audit_corrupt` names the first that is not a well-formed record, or one that does not
   * continue its run's chain (a gap, a wrong `prev`); a record at a seq the sink holds already is
   * `StateError` `stale_state` (another writer moved the chain first: a lost race).
   */
  append(records: readonly AuditRecord[]): void {
    const checked = checkRecords(records);
    checkChain(
      checked,
      (runId) => {
        const last = this.#byRun.get(runId)?.at(-1);
        return last === undefined ? null : { seq: last.seq, digest: last.digest };
      },
      CONTINUES_ELSEWHERE,
    );
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
