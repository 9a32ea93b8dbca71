import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { runStoreContract } from "./run-store-contract.js";
import { rawAccess } from "./sqlite-raw-access.js";

// Each test gets its own database file in a temp directory, removed afterwards.
runStoreContract("SqliteStore", async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-contract-"));
  const path = join(directory, "runs.db");
  const store = new SqliteStore(path);
  return {
    store,
    raw: rawAccess(path),
    child: { kind: "sqlite", location: path },
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
