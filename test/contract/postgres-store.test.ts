// The store contract on PostgreSQL, on a store that makes its own pool: each test gets a schema of
// its own, dropped afterwards. postgres-store-pool.test.ts runs it on a pool the test owns.
import { describe } from "node:test";
import { freshStore, withPostgres } from "../postgres/database.js";
import { budgetsContract } from "./budgets-contract.js";
import type { MakeStore } from "./contract-fixtures.js";
import { notificationsContract } from "./notifications-contract.js";
import { runStoreContract } from "./run-store-contract.js";
import { rawAccess } from "./postgres-raw-access.js";

withPostgres("PostgresStore contract", (url) => {
  const makeStore: MakeStore = () => {
    const made = freshStore(url);
    return Promise.resolve({
      ...made,
      raw: rawAccess(url, made.schema),
      child: { kind: "postgres", location: url, env: { LEASH_TEST_SCHEMA: made.schema } },
    });
  };
  runStoreContract("PostgresStore", makeStore);
  describe("PostgresStore shared budgets", () => budgetsContract(makeStore));
  describe("PostgresStore outbox", () => notificationsContract(makeStore));
});
