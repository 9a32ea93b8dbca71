// The store contract on PostgreSQL, on a store that makes its own pool: each test gets a schema of
// its own, dropped afterwards. postgres-store-pool.test.ts runs it on a pool the test owns.
import { freshStore, withPostgres } from "../postgres/database.js";
import { runStoreContract } from "./run-store-contract.js";
import { rawAccess } from "./postgres-raw-access.js";

withPostgres("PostgresStore contract", (url) => {
  runStoreContract("PostgresStore", () => {
    const made = freshStore(url);
    return Promise.resolve({
      ...made,
      raw: rawAccess(url, made.schema),
      child: { kind: "postgres", location: url, env: { LEASH_TEST_SCHEMA: made.schema } },
    });
  });
});
