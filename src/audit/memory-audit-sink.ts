import { checkOptionKeys, LeashError, StateError } from "../errors/index.js";
import type { AuditRecord } from "./audit-record.js";
import type { SyncReadableAuditSink } from "./audit-sink.js";
import { checkChain } from "./chain-heads.js";
import { checkRecords } from "./check-records.js";

// A sink may hold the rest of a run's trail whose start is kept elsewhere.
const CONTINUES_ELSEWHERE = { continuesElsewhere: true };

/** Options of {@link MemoryAuditSink}. */
export interface MemoryAuditSinkOptions {
  /**
   * Keep every record of the runs still going, but of the runs that ended (a `run_ended` record)
   * only the last `keepEnded` to end: an older ended run is forgotten whole, so that a long-lived
   * process stays bounded. Default: keep everything. A forgotten run's id can be used again, and the
   * sink keeps no Merkle log (no checkpoints); see the guide's page on the audit trail.
   */
  keepEnded?: number;
}

/** One run's records as the sink holds them. */
interface HeldRun {
  records: AuditRecord[];
}

/**
 * An audit sink that holds its records in memory: the default sink of an agent, and the one for tests.
 * With `keepEnded` it forgets the records of older ended runs, and then takes only runs it has seen
 * from their start.
 *
 * @example
 * const sink = new MemoryAuditSink();
 * const agent = new Agent({ tools, planner, audit: sink });
 * await agent.run("Find the page about spans.");
 * console.log(verifyAudit(sink.records)); // []
 *
 * @example
 * // A long-lived process without a store: the runs still going, and the last 100 that ended.
 * const agent = new Agent({ tools, planner, audit: new MemoryAuditSink({ keepEnded: 100 }) });
 */
export class MemoryAuditSink implements SyncReadableAuditSink {
  #all: AuditRecord[] = [];
  // Kept beside the full list so that reading one run (which the core does at the start of every run)
  // costs that run's records, not the whole trail.
  readonly #byRun = new Map<string, HeldRun>();
  readonly #keepEnded: number | undefined;
  // The ended runs still held, oldest first (a Map keeps the order of insertion).
  readonly #ended = new Map<string, HeldRun>();
  // Which records of #all belong to forgotten runs, until the list is compacted.
  readonly #forgotten = new WeakSet<AuditRecord>();
  #forgottenCount = 0;

  /** A sink that keeps everything, or, with `keepEnded`, the runs still going and the last ended. */
  constructor(options: MemoryAuditSinkOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new LeashError("invalid_option", "Expected the options of MemoryAuditSink to be an object.");
    }
    checkOptionKeys(options, ["keepEnded"], "new MemoryAuditSink(options)");
    const { keepEnded } = options;
    if (keepEnded !== undefined && (!Number.isSafeInteger(keepEnded) || keepEnded < 0)) {
      throw new LeashError("invalid_option", "Expected `keepEnded` to be a whole number, 0 or more.", {
        details: { keepEnded: String(keepEnded) },
      });
    }
    this.#keepEnded = keepEnded;
  }

  /** How many ended runs the sink keeps (`undefined`: all of them, the default). */
  get keepEnded(): number | undefined {
    return this.#keepEnded;
  }

  /**
   * Appends records in order. Every record is checked first, so a call adds all of its records or
   * none: `audit_corrupt` names the first that is not a well-formed record, or one that does not
   * continue its run's chain (a gap, a wrong `prev`); a record at a seq the sink holds already is
   * `StateError` `stale_state` (another writer moved the chain first: a lost race). A sink with
   * `keepEnded` refuses a record past seq 0 of a run it holds nothing of (`StateError`
   * `run_not_found`): that run may be one it forgot, resumed from an old copy.
   */
  append(records: readonly AuditRecord[]): void {
    const checked = checkRecords(records);
    const bounded = this.#keepEnded !== undefined;
    if (bounded) this.#refuseUnknown(checked);
    checkChain(
      checked,
      (runId) => {
        const last = this.#byRun.get(runId)?.records.at(-1);
        return last === undefined ? null : { seq: last.seq, digest: last.digest };
      },
      bounded ? {} : CONTINUES_ELSEWHERE,
    );
    for (const record of checked) {
      this.#all.push(record);
      let run = this.#byRun.get(record.run);
      if (run === undefined) {
        run = { records: [] };
        this.#byRun.set(record.run, run);
      }
      run.records.push(record);
      if (bounded && record.event === "run_ended") this.#ended.set(record.run, run);
    }
    if (bounded) this.#forgetOldEnded();
  }

  /** A fresh array of every record held, in the order they were appended. */
  get records(): AuditRecord[] {
    return this.#forgottenCount === 0 ? this.#all.slice() : this.#all.filter((record) => !this.#forgotten.has(record));
  }

  /**
   * One run's records in the order they were appended (seq order, for a sound trail), or every record
   * when no run id is given (each run's in order, the runs interleaved as they were appended).
   */
  read(runId?: string): Promise<AuditRecord[]> {
    if (runId === undefined) return Promise.resolve(this.records);
    return Promise.resolve(this.#byRun.get(runId)?.records.slice() ?? []);
  }

  #refuseUnknown(records: readonly AuditRecord[]): void {
    const starts = new Set<string>();
    for (const record of records) {
      if (this.#byRun.has(record.run) || starts.has(record.run)) continue;
      if (record.seq === 0) {
        starts.add(record.run);
        continue;
      }
      throw new StateError(
        "run_not_found",
        `The sink holds nothing of run \`${record.run}\`, so record ${record.seq} continues nothing it knows: ` +
          "a sink that keeps only the last ended runs may have forgotten it; nothing was written.",
        { details: { runId: record.run, seq: record.seq } },
      );
    }
  }

  #forgetOldEnded(): void {
    const keep = this.#keepEnded!;
    while (this.#ended.size > keep) {
      const [runId, run] = this.#ended.entries().next().value as [string, HeldRun];
      this.#ended.delete(runId);
      if (this.#byRun.get(runId) === run) this.#byRun.delete(runId);
      for (const record of run.records) this.#forgotten.add(record);
      this.#forgottenCount += run.records.length;
    }
    // Compacted once forgotten records are half the list, so that forgetting costs O(1) a record.
    if (this.#forgottenCount > 0 && this.#forgottenCount * 2 >= this.#all.length) {
      this.#all = this.#all.filter((record) => !this.#forgotten.has(record));
      this.#forgottenCount = 0;
    }
  }
}
