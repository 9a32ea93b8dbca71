// The store contract on PostgreSQL: each test gets a schema of its own, dropped afterwards, once on a
// store that makes its own pool and once on a pool the test owns (which the store must leave open).
import { after } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, freshStore, sql, withPostgres } from "../postgres/database.js";
import { runStoreContract } from "./run-store-contract.js";
import type { RawAccess } from "./contract-fixtures.js";

/** Writes to a schema's tables on a connection of its own, as another program would. */
function rawAccess(url: string, schema: string): RawAccess {
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

withPostgres("PostgresStore contract", (url) => {
  runStoreContract("PostgresStore", () => {
    const made = freshStore(url);
    return Promise.resolve({
      ...made,
      raw: rawAccess(url, made.schema),
      child: { kind: "postgres", location: url, env: { LEASH_TEST_SCHEMA: made.schema } },
    });
  });

  const pool = new pg.Pool({ connectionString: url, max: 4 });
  after(() => pool.end());
  runStoreContract("PostgresStore on a given pool", () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ pool }, { schema });
    return Promise.resolve({
      store,
      raw: rawAccess(url, schema),
      child: { kind: "postgres", location: url, env: { LEASH_TEST_SCHEMA: schema } },
      cleanup: async () => {
        await store.close();
        // The pool is still usable after close: the store did not end it.
        await pool.query("SELECT 1");
        await dropSchema(url, schema);
      },
    });
  });
});
