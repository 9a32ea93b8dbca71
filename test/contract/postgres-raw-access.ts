// Raw writes to a PostgreSQL store's tables for the store contract (postgres-store.test.ts and
// postgres-store-pool.test.ts), made on connections of their own as another program would.
import pg from "pg";
import { sql } from "../postgres/database.js";
import type { RawAccess } from "./contract-fixtures.js";

/** Writes to a schema's tables on a connection of its own, as another program would. */
export function rawAccess(url: string, schema: string): RawAccess {
  const tables = pg.escapeIdentifier(schema);
  return {
    setStateText: async (runId, text) => {
      await sql(url, `UPDATE ${tables}.leash_runs SET state = $1 WHERE run_id = $2`, [text, runId]);
    },
    setRecordText: async (runId, seq, text) => {
      await sql(url, `UPDATE ${tables}.leash_audit SET record = $1 WHERE run_id = $2 AND seq = $3`, [text, runId, seq]);
    },
  };
}
