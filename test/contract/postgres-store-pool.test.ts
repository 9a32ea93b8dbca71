// The store contract on PostgreSQL, on a pool the test owns (which the store must leave open): each
// test gets a schema of its own, dropped afterwards. postgres-store.test.ts runs it on a store's own pool.
import { after } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { runStoreContract } from "./run-store-contract.js";
import { rawAccess } from "./postgres-raw-access.js";

withPostgres("PostgresStore contract on a given pool", (url) => {
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
