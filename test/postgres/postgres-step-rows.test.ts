// The step-row tests on PostgreSQL: a schema of its own per test, with a trigger that notes every
// write of a step row.
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { stepRowsSuite } from "../stores/step-rows-suite.js";
import type { StepWrite } from "../stores/step-rows-suite.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "./database.js";

withPostgres("PostgresStore step rows", (url) => {
  stepRowsSuite("PostgresStore step rows", async () => {
    const schema = freshSchemaName();
    const quoted = pg.escapeIdentifier(schema);
    // The store makes its schema and tables; the trigger goes on them before any test write.
    const first = new PostgresStore({ connectionString: url, schema });
    await first.list();
    await first.close();
    await sql(
      url,
      `CREATE TABLE ${quoted}.step_writes (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run_id text NOT NULL, step_index integer NOT NULL, settled boolean NOT NULL);
       CREATE FUNCTION ${quoted}.note_step_write() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO ${quoted}.step_writes (run_id, step_index, settled) VALUES (NEW.run_id, NEW.step_index, (NEW.step::jsonb ->> 'outcome') IS NOT NULL);
         RETURN NEW;
       END $$;
       CREATE TRIGGER step_written AFTER INSERT OR UPDATE ON ${quoted}.leash_steps FOR EACH ROW EXECUTE FUNCTION ${quoted}.note_step_write();`,
    );
    const opened: PostgresStore[] = [];
    return {
      open: () => {
        const store = new PostgresStore({ connectionString: url, schema });
        opened.push(store);
        return store;
      },
      stepWrites: async () => {
        const result = await sql(
          url,
          `SELECT run_id, step_index, settled FROM ${quoted}.step_writes ORDER BY position`,
        );
        return result.rows.map((row: { run_id: string; step_index: number; settled: boolean }): StepWrite => ({
          runId: row.run_id,
          index: row.step_index,
          settled: row.settled,
        }));
      },
      remove: async () => {
        for (const store of opened) await store.close();
        await dropSchema(url, schema);
      },
    };
  });
});
