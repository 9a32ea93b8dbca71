// The two stores the command line works on, as the CLI tests name them: a SQLite file (`--db FILE`)
// and a PostgreSQL schema (`--db URL --schema NAME`), each with the store a test fills in-process and
// the SQL it tampers with.
import { test } from "node:test";
import type { TestContext } from "node:test";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, sql } from "../postgres/database.js";
import { tempFolder } from "./cli-helpers.js";

/** A store the bin is pointed at in a test. */
export interface CliStore {
  kind: "sqlite" | "postgres";
  /** The options that name it on the command line. */
  args: string[];
  /** A folder of the test's own, to run the bin in. */
  cwd: string;
  /** The store, opened in the test process (closed after the test). */
  store: RunStore & AuditSink;
  /** Replaces a run's saved state with text that is no state. */
  corruptState(runId: string): Promise<void>;
}

/** The kinds of store every command is tested on: PostgreSQL only where DATABASE_URL is set. */
export function storeKinds(): ("sqlite" | "postgres")[] {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === "" ? ["sqlite"] : ["sqlite", "postgres"];
}

/** Defines one test per kind of store, named after it, with a fresh store of that kind. */
export function eachStore(name: string, body: (t: TestContext, target: CliStore) => Promise<void>): void {
  for (const kind of storeKinds()) {
    test(`${name} (${kind})`, async (t) => {
      const target = openCliStore(t, kind);
      await body(t, target);
    });
  }
}

/** A fresh store of a kind, removed after the test. */
export function openCliStore(t: TestContext, kind: "sqlite" | "postgres"): CliStore {
  const folder = tempFolder();
  if (kind === "sqlite") {
    const file = join(folder.path, "app.db");
    const store = new SqliteStore(file);
    t.after(async () => {
      await store.close();
      folder.remove();
    });
    return {
      kind,
      args: ["--db", file],
      cwd: folder.path,
      store,
      corruptState: (runId) => {
        const database = new Database(file);
        try {
          database.prepare("UPDATE runs SET state = ? WHERE run_id = ?").run("{not a state", runId);
        } finally {
          database.close();
        }
        return Promise.resolve();
      },
    };
  }
  const url = process.env.DATABASE_URL as string;
  const schema = freshSchemaName("leash_cli");
  const store = new PostgresStore({ connectionString: url, schema });
  t.after(async () => {
    await store.close();
    await dropSchema(url, schema);
    folder.remove();
  });
  return {
    kind,
    args: ["--db", url, "--schema", schema],
    cwd: folder.path,
    store,
    corruptState: async (runId) => {
      await sql(url, `UPDATE "${schema}".leash_runs SET state = $1 WHERE run_id = $2`, ["{not a state", runId]);
    },
  };
}
