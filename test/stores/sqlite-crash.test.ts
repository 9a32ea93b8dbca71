// Real crashes on a SQLite file: a child process runs an agent with the store as store and sink,
// is killed with SIGKILL mid-call, and a fresh agent on the same file resumes the run (the shared
// crash suite, test/stores/crash-suite.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { crashSuite } from "./crash-suite.js";

crashSuite("SqliteStore under SIGKILL", () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-crash-"));
  const database = join(directory, "runs.db");
  return {
    kind: "sqlite",
    location: database,
    effects: join(directory, "effects.jsonl"),
    open: () => new SqliteStore(database),
    // SQLite's trail is read synchronously, as an agent's own sink is.
    records: (store) => store.records,
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
});
