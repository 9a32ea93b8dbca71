import type { Database, Statement } from "better-sqlite3";
import { isLeashError, LeashError } from "../../errors/index.js";
import type { RunState } from "../../state/run-state.js";
import { readEach } from "../list-runs.js";
import type { ListOptions, UnreadableRun } from "../run-store.js";
import { cursorAfter, summaryOf } from "../run-summary.js";
import type { RunSummary, SummaryPage } from "../run-summary.js";
import { cursorOf, listingQuery, prefixCanMatch } from "./sqlite-list-query.js";
import type { ListingFilter } from "./sqlite-list-query.js";
import type { RunRow, SqliteRuns } from "./sqlite-runs.js";
import { storedSummary } from "./stored-summary.js";

interface SummaryRow {
  run_id: string;
  summary: string | null;
  change: number;
  updated_at: string;
}

/** A page of summaries, and the runs whose summary could not be read nor made from their state. */
export interface SummaryListing {
  page: SummaryPage;
  unreadable: UnreadableRun[];
}

/**
 * The listings of a {@link SqliteStore}: `summaries()` and `list()` run the same query (filters, order
 * and page from {@link listingQuery}), so they give the same runs in the same order; `summaries()`
 * reads only the `summary` column, and `list()` the states of the page's runs only. Each listing is
 * one read transaction: one snapshot of the file, whatever another process commits meanwhile.
 */
export class SqliteListing {
  readonly #database: Database;
  readonly #runs: SqliteRuns;
  readonly #positionOf: Statement<[string], { position: number }>;
  readonly #header: Statement<[string], RunRow>;
  /** The listing statements, by their text, prepared on first use (a handful of shapes at most). */
  readonly #statements = new Map<string, Statement<unknown[], unknown>>();
  readonly #summaries: (options: ListOptions) => SummaryListing;
  readonly #states: (options: ListOptions) => { states: RunState[]; unreadable: UnreadableRun[] };

  constructor(database: Database, runs: SqliteRuns) {
    this.#database = database;
    this.#runs = runs;
    this.#positionOf = database.prepare("SELECT position FROM runs WHERE run_id = ?");
    this.#header = database.prepare("SELECT run_id, state FROM runs WHERE run_id = ?");
    this.#summaries = database.transaction((options: ListOptions) => this.#readSummaries(options));
    this.#states = database.transaction((options: ListOptions) => {
      const rows = this.#rows<RunRow>(options, "run_id, state");
      return readEach(
        rows,
        (row) => row.run_id,
        (row) => this.#runs.assemble(row),
      );
    });
  }

  /** One page of summaries, options checked by the caller. */
  summaries(options: ListOptions): SummaryListing {
    return this.#summaries(options);
  }

  /** The states of the runs `summaries(options)` lists, in its order; those that cannot be read apart. */
  states(options: ListOptions): { states: RunState[]; unreadable: UnreadableRun[] } {
    return this.#states(options);
  }

  #readSummaries(options: ListOptions): SummaryListing {
    const rows = this.#rows<SummaryRow>(options, "run_id, summary, change, updated_at");
    const runs: RunSummary[] = [];
    const unreadable: UnreadableRun[] = [];
    let last: RunSummary | undefined;
    for (const row of rows) {
      const summary = this.#summaryOf(row, unreadable);
      if (summary !== null) runs.push(summary);
      last = summary ?? undefined;
    }
    const order = options.order ?? "created_asc";
    let next: string | undefined;
    const final = rows.at(-1);
    if (options.limit !== undefined && final !== undefined && rows.length === options.limit) {
      // From the last row read, readable or not, so the next page never shows a row twice; for the
      // created orders only its id counts (the store resumes after its position).
      next = cursorAfter({ runId: final.run_id, createdAt: last?.createdAt ?? "", updatedAt: final.updated_at }, order);
    }
    return { page: { runs, next }, unreadable };
  }

  /** The row's summary as stored, else made from its state; `null` (and reported) when neither can be read. */
  #summaryOf(row: SummaryRow, unreadable: UnreadableRun[]): RunSummary | null {
    const stored = row.summary === null ? null : storedSummary(row.summary, row.change);
    if (stored !== null && stored.runId === row.run_id) return stored;
    try {
      const header = this.#header.get(row.run_id);
      if (header === undefined) return null;
      return summaryOf(this.#runs.assemble(header), row.change);
    } catch (error) {
      if (!isLeashError(error) && !(error instanceof RangeError)) throw error;
      unreadable.push({ runId: row.run_id, error });
      return null;
    }
  }

  #rows<Row>(options: ListOptions, columns: string): Row[] {
    if (!prefixCanMatch(options.runIdPrefix)) return [];
    const { sql, values } = listingQuery(this.#filterOf(options), columns);
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#database.prepare<unknown[], unknown>(sql);
      this.#statements.set(sql, statement);
    }
    return statement.all(...values) as Row[];
  }

  #filterOf(options: ListOptions): ListingFilter {
    const { status, awaitingPerson, runIdPrefix, limit, order, changedSince } = options;
    const filter: ListingFilter = { status, awaitingPerson, runIdPrefix, limit, order, changedSince };
    const cursor = cursorOf(options);
    if (cursor === undefined) return filter;
    if (cursor.order === "updated_desc") return { ...filter, after: { cursor } };
    const row = this.#positionOf.get(cursor.runId);
    if (row === undefined) {
      throw new LeashError(
        "invalid_option",
        `The cursor starts after run \`${cursor.runId}\`, which is not in the store: pass the \`next\` of a page of this store.`,
        { details: { runId: cursor.runId } },
      );
    }
    return { ...filter, after: { cursor, position: row.position } };
  }
}
