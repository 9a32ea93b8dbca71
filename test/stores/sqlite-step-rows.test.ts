// The step-row tests on SQLite: a file of its own per test, with a trigger that notes every write of
// a step row.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { stepRowsSuite } from "./step-rows-suite.js";
import type { StepWrite } from "./step-rows-suite.js";

stepRowsSuite("SqliteStore step rows", async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-steps-"));
  const path = join(directory, "runs.db");
  // The store makes its tables; the trigger goes on them before any test write.
  await new SqliteStore(path).close();
  const raw = new Database(path);
  raw.exec(`
    CREATE TABLE step_writes (position INTEGER PRIMARY KEY, run_id TEXT NOT NULL, step_index INTEGER NOT NULL, settled INTEGER NOT NULL);
    CREATE TRIGGER step_inserted AFTER INSERT ON steps BEGIN
      INSERT INTO step_writes (run_id, step_index, settled) VALUES (new.run_id, new.step_index, json_extract(new.step, '$.outcome') IS NOT NULL);
    END;
    CREATE TRIGGER step_updated AFTER UPDATE ON steps BEGIN
      INSERT INTO step_writes (run_id, step_index, settled) VALUES (new.run_id, new.step_index, json_extract(new.step, '$.outcome') IS NOT NULL);
    END;
  `);
  const read = raw.prepare<[], { run_id: string; step_index: number; settled: number }>(
    "SELECT run_id, step_index, settled FROM step_writes ORDER BY position",
  );
  const opened: SqliteStore[] = [];
  return {
    open: () => {
      const store = new SqliteStore(path);
      opened.push(store);
      return store;
    },
    stepWrites: () =>
      Promise.resolve(
        read.all().map((row): StepWrite => ({ runId: row.run_id, index: row.step_index, settled: row.settled === 1 })),
      ),
    remove: async () => {
      for (const store of opened) await store.close();
      raw.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});
