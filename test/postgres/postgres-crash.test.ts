// Real crashes on PostgreSQL: a child process runs an agent with the store as store and sink, is
// killed with SIGKILL mid-call, and a fresh agent on the same schema resumes the run (the shared
// crash suite, test/stores/crash-suite.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { SCHEMA_VARIABLE } from "../fixtures/stores/open-store.js";
import { crashSuite } from "../stores/crash-suite.js";
import { dropSchema, freshSchemaName, withPostgres } from "./database.js";

withPostgres("PostgresStore under SIGKILL", (url) => {
  crashSuite("PostgresStore under SIGKILL", () => {
    const directory = mkdtempSync(join(tmpdir(), "leash-pg-crash-"));
    const schema = freshSchemaName();
    return {
      kind: "postgres",
      location: url,
      env: { [SCHEMA_VARIABLE]: schema },
      effects: join(directory, "effects.jsonl"),
      open: () => new PostgresStore({ connectionString: url, schema }),
      records: (store) => store.read(),
      remove: async () => {
        rmSync(directory, { recursive: true, force: true });
        await dropSchema(url, schema);
      },
    };
  });
});
