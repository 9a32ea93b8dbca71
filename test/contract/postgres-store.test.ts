// The store contract on PostgreSQL: each test gets a schema of its own, dropped afterwards, once on a
// store that makes its own pool and once on a pool the test owns (which the store must leave open).
import { after } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, freshStore, withPostgres } from "../postgres/database.js";
import { runStoreContract } from "./run-store-contract.js";

withPostgres("PostgresStore contract", (url) => {
  runStoreContract("PostgresStore", () => Promise.resolve(freshStore(url)));

  const pool = new pg.Pool({ connectionString: url, max: 4 });
  after(() => pool.end());
  runStoreContract("PostgresStore on a given pool", () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ pool }, { schema });
    return Promise.resolve({
      store,
      cleanup: async () => {
        await store.close();
        // The pool is still usable after close: the store did not end it.
        await pool.query("SELECT 1");
        await dropSchema(url, schema);
      },
    });
  });
});
