import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { runStoreContract } from "./run-store-contract.js";
import type { RawAccess } from "./contract-fixtures.js";

/** Writes to the file's tables on a connection of its own, as another program would. */
function rawAccess(path: string): RawAccess {
  const write = (text: string, values: unknown[]): Promise<void> => {
    const raw = new Database(path);
    try {
      raw.prepare(text).run(...values);
    } finally {
      raw.close();
    }
    return Promise.resolve();
  };
  return {
    setStateText: (runId, text) => write("UPDATE runs SET state = ? WHERE run_id = ?", [text, runId]),
    setRecordText: (runId, seq, text) =>
      write("UPDATE audit SET record = ? WHERE run_id = ? AND seq = ?", [text, runId, seq]),
  };
}

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
