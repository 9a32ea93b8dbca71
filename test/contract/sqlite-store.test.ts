import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { runStoreContract } from "./run-store-contract.js";

// Each test gets its own database file in a temp directory, removed afterwards.
runStoreContract("SqliteStore", async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-contract-"));
  const store = new SqliteStore(join(directory, "runs.db"));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

runStoreContract("SqliteStore in memory", async () => {
  const store = new SqliteStore(":memory:");
  return { store, cleanup: () => store.close() };
});
