// The listing contract (summaries, paged list, orders, cursors, the change sequence) on every
// built-in store: MemoryStore, a SqliteStore file and PostgresStore on a schema of its own per test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { rawAccess as postgresRawAccess } from "../contract/postgres-raw-access.js";
import { rawAccess as sqliteRawAccess } from "../contract/sqlite-raw-access.js";
import { freshStore, withPostgres } from "../postgres/database.js";
import { summariesConformance } from "./summaries-suite.js";

summariesConformance(
  "MemoryStore",
  () => {
    const store = new MemoryStore();
    return Promise.resolve({ store, cleanup: () => store.close() });
  },
  false,
);

summariesConformance(
  "SqliteStore",
  () => {
    const directory = mkdtempSync(join(tmpdir(), "leash-summaries-"));
    const path = join(directory, "runs.db");
    const store = new SqliteStore(path);
    return Promise.resolve({
      store,
      raw: sqliteRawAccess(path),
      cleanup: async () => {
        await store.close();
        rmSync(directory, { recursive: true, force: true });
      },
    });
  },
  true,
);

withPostgres("PostgresStore summaries and paged listings", (url) => {
  summariesConformance(
    "PostgresStore",
    () => {
      const made = freshStore(url);
      return Promise.resolve({ ...made, raw: postgresRawAccess(url, made.schema) });
    },
    true,
  );
});
