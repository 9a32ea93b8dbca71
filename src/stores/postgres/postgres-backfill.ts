import type { PostgresPool } from "./postgres-pool.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import { assembleRun, selectRuns } from "./postgres-runs.js";
import { summaryText } from "../run-summary.js";
import type { PostgresTables } from "./postgres-tables.js";
import { CHANGE_LOCK } from "./postgres-functions.js";

/** How many runs one pass of the fill reads and writes, so that no statement holds many rows at once. */
const FILL_BATCH = 500;

/**
 * Gives the runs written before schema version 5 their summary, `updated_key` and change number, in
 * batches of {@link FILL_BATCH} through the partial index of rows without a summary: the summary is
 * computed by leash from the state, as for every save. A row whose state cannot be read gets an empty
 * summary, so that it is not read again at every start; listings of summaries leave it out, and
 * `list()` reports it as unreadable, as before. Safe beside other processes doing the same or
 * saving: a row is written only while it still has no summary (every save of version 5 writes one),
 * and its change number is taken under the change fence, as a save's is.
 */
export async function fillSummaries(pool: PostgresPool, tables: PostgresTables): Promise<void> {
  for (;;) {
    const found = await queryOnce(
      pool,
      "reading runs without a summary",
      `${selectRuns(tables, "WHERE runs.summary IS NULL")} LIMIT ${FILL_BATCH}`,
    );
    if (found.rows.length === 0) return;
    const runIds: string[] = [];
    const summaries: string[] = [];
    const keys: string[] = [];
    for (const row of found.rows) {
      runIds.push(String(row.run_id));
      try {
        const state = assembleRun(row);
        summaries.push(summaryText(state));
        keys.push(state.updatedAt);
      } catch {
        summaries.push("");
        keys.push("");
      }
    }
    await inTransaction(pool, "filling in the runs' summaries", async (client) => {
      await client.query("SELECT pg_advisory_xact_lock_shared($1, hashtext($2))", [CHANGE_LOCK, tables.schema]);
      await client.query(
        `UPDATE ${tables.runs} AS runs
         SET summary = filled.summary, updated_key = filled.updated_key, change_number = nextval($4::text::regclass)
         FROM unnest($1::text[], $2::text[], $3::text[]) AS filled (run_id, summary, updated_key)
         WHERE runs.run_id = filled.run_id AND runs.summary IS NULL`,
        [runIds, summaries, keys, tables.changes],
      );
    });
    if (found.rows.length < FILL_BATCH) return;
  }
}
