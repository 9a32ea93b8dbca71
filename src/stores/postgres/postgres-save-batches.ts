import type { AuditRecord } from "../../audit/audit-record.js";
import { POOL_WAIT_TIMEOUT, isRetryable, storeFailed } from "./postgres-errors.js";
import type { PostgresPool } from "./postgres-pool.js";
import type { RunRows } from "./postgres-runs.js";
import type { PostgresTables } from "./postgres-tables.js";

/** The most saves one statement carries, so that no statement holds many rows locked for long. */
const MAX_BATCH = 100;

/** What became of one save of a batch: its change number, or the SQLSTATE and detail it was refused with. */
export interface BatchOutcome {
  change: number | undefined;
  state: string | undefined;
  detail: string | undefined;
}

/** One save waiting for its batch. */
interface Waiting {
  item: Record<string, unknown>;
  /** Fails the save with `store_busy` if no slot frees within `acquireMs`. */
  timer: NodeJS.Timeout;
  resolve: (outcome: BatchOutcome) => void;
  reject: (error: unknown) => void;
}

/** Whether a plain field holds a NUL or a surrogate (lone or paired: a run id has none), which jsonb may refuse. */
function notForJsonb(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0 || (unit >= 0xd800 && unit <= 0xdfff)) return true;
  }
  return false;
}

/**
 * Whether a save can travel in a batch: its plain fields (the texts are JSON already, escaped) hold
 * nothing jsonb refuses, so that one odd save can never fail the saves of other runs beside it.
 */
export function batchable(rows: RunRows, records: readonly AuditRecord[]): boolean {
  const plain = [rows.runId, rows.status, rows.updatedKey, ...records.flatMap((record) => [record.run, record.digest])];
  return !plain.some(notForJsonb);
}

/**
 * Group commit for one store object: saves of different runs made while every connection slot is
 * busy wait together, and go as one call of `leash_save_runs` as soon as a slot frees, one round trip
 * and one commit for all of them. A save made while a slot is free goes at once, alone, so an idle
 * store adds no wait. Each save is still its own compare-and-set and chain check (a subtransaction
 * in the function): one refused save is reported to its caller alone, and the others commit.
 */
export class SaveBatches {
  readonly #pool: () => Promise<PostgresPool>;
  readonly #tables: PostgresTables;
  readonly #slots: number;
  readonly #acquireMs: number;
  readonly #waiting: Waiting[] = [];
  #busy = 0;

  /** `slots` batches are in flight at most (the pool's size); a save waits for one at most `acquireMs`. */
  constructor(pool: () => Promise<PostgresPool>, tables: PostgresTables, slots: number, acquireMs: number) {
    this.#pool = pool;
    this.#tables = tables;
    this.#slots = slots;
    this.#acquireMs = acquireMs;
  }

  /** Sends one save (already checked as {@link batchable}) with the next batch; resolves with its outcome. */
  save(rows: RunRows, expectedRevision: number, records: readonly AuditRecord[]): Promise<BatchOutcome> {
    const item = {
      runId: rows.runId,
      expected: expectedRevision,
      revision: rows.revision,
      status: rows.status,
      answers: rows.answerCount,
      header: rows.header,
      steps: rows.stepCount,
      full: rows.full,
      indexes: rows.indexes,
      texts: rows.texts,
      summary: rows.summary,
      updatedKey: rows.updatedKey,
      runs: records.map((record) => record.run),
      seqs: records.map((record) => record.seq),
      records: records.map((record) => JSON.stringify(record)),
      digests: records.map((record) => record.digest),
      prevs: records.map((record) => record.prev),
      // JSON text inside the batch's jsonb, read back as text: a NUL escaped in it stays escaped.
      events: rows.events,
    };
    return new Promise((resolve, reject) => {
      // Waiting here is waiting for a connection, so it has the same bound as pg's pool queue.
      const timer = setTimeout(() => {
        const place = this.#waiting.indexOf(waiting);
        if (place === -1) return;
        this.#waiting.splice(place, 1);
        reject(storeFailed(new Error(POOL_WAIT_TIMEOUT), `saving run \`${rows.runId}\``));
      }, this.#acquireMs);
      timer.unref();
      const waiting: Waiting = { item, timer, resolve, reject };
      this.#waiting.push(waiting);
      this.#pump();
    });
  }

  /** Resolves once no save waits for a batch and no batch is in flight, or after `withinMs`. */
  async idle(withinMs: number): Promise<void> {
    const end = Date.now() + withinMs;
    while ((this.#busy > 0 || this.#waiting.length > 0) && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  #pump(): void {
    while (this.#busy < this.#slots && this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      for (const waiting of batch) clearTimeout(waiting.timer);
      this.#busy++;
      void this.#send(batch).finally(() => {
        this.#busy--;
        this.#pump();
      });
    }
  }

  async #send(batch: Waiting[]): Promise<void> {
    const text = `SELECT save_index, save_change, save_state, save_detail FROM ${this.#tables.saveRuns}($1::jsonb)`;
    const value = JSON.stringify(batch.map((waiting) => waiting.item));
    for (let attempt = 1; ; attempt++) {
      try {
        const pool = await this.#pool();
        const result = await pool.query(text, [value]);
        const outcomes = new Map(result.rows.map((row) => [Number(row.save_index), row]));
        batch.forEach((waiting, index) => {
          const row = outcomes.get(index + 1);
          waiting.resolve({
            change: row?.save_change === null || row?.save_change === undefined ? undefined : Number(row.save_change),
            state: typeof row?.save_state === "string" ? row.save_state : undefined,
            detail: typeof row?.save_detail === "string" ? row.save_detail : undefined,
          });
        });
        return;
      } catch (error) {
        // A batch PostgreSQL rolled back whole (a deadlock) wrote nothing and runs again.
        if (isRetryable(error) && attempt < 5) continue;
        const failed = storeFailed(error, `saving ${batch.length} runs`);
        for (const waiting of batch) waiting.reject(failed);
        return;
      }
    }
  }
}
