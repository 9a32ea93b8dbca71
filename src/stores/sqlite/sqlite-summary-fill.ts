import type { Database, Statement } from "better-sqlite3";
import { summaryText } from "../run-summary.js";
import type { RunRow, SqliteRuns } from "./sqlite-runs.js";

/** How many rows one fill transaction takes: each is a state parsed on the thread, so a batch stays short. */
const FILL_BATCH = 128;

interface UnfilledRow extends RunRow {
  position: number;
}

/**
 * Fills in the `summary` of rows written before schema version 4, in the background and in bounded
 * batches: opening a file of any size costs one look at the partial index of the rows left to fill,
 * and the work is then done a batch of {@link FILL_BATCH} rows per turn of the event loop, each in
 * a transaction of its own, so that no save waits long behind it. A listing never waits for it: it
 * computes the summary of an unfilled row from the row's state. Each state is read under the
 * transaction's write lock, so the summary is that of the state stored; a row whose state cannot be
 * read is left unfilled (its listings report it) and skipped. Another process filling the same file
 * does no harm: a row is written only while its summary is still missing.
 */
export class SqliteSummaryFill {
  readonly #unfilled: Statement<[number, number], UnfilledRow>;
  readonly #fill: Statement<[string, string]>;
  readonly #batch: () => boolean;
  #after = 0;
  #timer: NodeJS.Immediate | undefined;

  constructor(database: Database, runs: SqliteRuns) {
    this.#unfilled = database.prepare(
      "SELECT position, run_id, state FROM runs WHERE summary IS NULL AND position > ? ORDER BY position LIMIT ?",
    );
    this.#fill = database.prepare("UPDATE runs SET summary = ? WHERE run_id = ? AND summary IS NULL");
    const batch = database.transaction(() => {
      const rows = this.#unfilled.all(this.#after, FILL_BATCH);
      for (const row of rows) {
        this.#after = row.position;
        let summary: string;
        try {
          summary = summaryText(runs.assemble(row));
        } catch {
          // An unreadable state: left for its listings to report, as they report it today.
          continue;
        }
        this.#fill.run(summary, row.run_id);
      }
      return rows.length === FILL_BATCH;
    });
    this.#batch = () => batch.immediate();
  }

  /** Starts filling, if any row is left to fill; one look at the partial index when none is. */
  start(): void {
    if (this.#unfilled.get(0, 1) !== undefined) this.#schedule();
  }

  /** Stops filling (the store is closing); what is left is filled by the next open. */
  stop(): void {
    if (this.#timer !== undefined) clearImmediate(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    // Unreferenced: a store left open must not keep the process alive for this.
    this.#timer = setImmediate(() => {
      this.#timer = undefined;
      let more: boolean;
      try {
        more = this.#batch();
      } catch {
        // A busy file or a failing disk: the next open tries again; the listings do not depend on it.
        return;
      }
      if (more) this.#schedule();
    });
    this.#timer.unref();
  }
}
