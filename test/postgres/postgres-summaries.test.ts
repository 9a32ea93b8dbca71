// What PostgresStore adds to the listing contract: summaries are read from their own column, never
// from a state; a schema of version 4 is migrated and its runs get their summaries; and the change
// sequence it reports never runs ahead of a change still uncommitted, so a watcher that lists
// `changedSince` the last value it read cannot miss a change that committed late.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { summaryOf } from "../../src/stores/run-summary.js";
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from "../../src/stores/postgres/index.js";
import type { UnreadableRun } from "../../src/stores/run-store.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { until } from "../worker/worker-helpers.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "./database.js";

withPostgres("PostgresStore summaries", (url) => {
  describe("PostgresStore summaries", () => {
    const table = (schema: string, name: string): string => `${pg.escapeIdentifier(schema)}.${name}`;

    test("summaries() reads no state: a run whose state text is broken is still listed, while list() reports it", async () => {
      const schema = freshSchemaName();
      const store = new PostgresStore({ connectionString: url, schema });
      try {
        await store.create(stateOf("good"));
        await store.create(stateOf("broken", { goal: "x".repeat(500) }));
        await sql(url, `UPDATE ${table(schema, "leash_runs")} SET state = 'not json' WHERE run_id = 'broken'`);
        const page = await store.summaries();
        assert.deepEqual(
          page.runs.map((run) => run.runId),
          ["good", "broken"],
        );
        assert.equal(page.runs[1]?.goalShortened, true);
        const unreadable: UnreadableRun[] = [];
        const states = await store.list({ onUnreadable: (problem) => unreadable.push(problem) });
        assert.deepEqual(
          states.map((state) => state.runId),
          ["good"],
        );
        assert.deepEqual(
          unreadable.map((problem) => problem.runId),
          ["broken"],
        );
      } finally {
        await store.close();
        await dropSchema(url, schema);
      }
    });

    test("a schema of version 4 is migrated, and its runs get the summaries, updated keys and change numbers of their states", async () => {
      const schema = freshSchemaName();
      const first = new PostgresStore({ connectionString: url, schema });
      const runIds = Array.from({ length: 7 }, (_, index) => `old-${index}`);
      try {
        for (const runId of runIds)
          await first.create(stateOf(runId, { status: runId.endsWith("3") ? "failed" : "running" }));
        await first.save(stateOf("old-1", { revision: 2, goal: "changed" }), { expectedRevision: 1 });
        await first.create(stateOf("old-unreadable"));
      } finally {
        await first.close();
      }
      // Back to version 4, as a database of an older leash holds it.
      await sql(
        url,
        `DROP FUNCTION ${table(schema, "leash_save_run")}, ${table(schema, "leash_create_run")}, ${table(schema, "leash_append_records")}, ${table(schema, "leash_change_sequence")};
         DROP SEQUENCE ${table(schema, "leash_change_seq")};
         ALTER TABLE ${table(schema, "leash_runs")} DROP COLUMN summary, DROP COLUMN updated_key, DROP COLUMN change_number;
         UPDATE ${table(schema, "leash_runs")} SET state = '{' WHERE run_id = 'old-unreadable';
         UPDATE ${table(schema, "leash_meta")} SET value = '4' WHERE key = 'schema_version'`,
      );
      const store = new PostgresStore({ connectionString: url, schema });
      try {
        const page = await store.summaries();
        const version = await sql(url, `SELECT value FROM ${table(schema, "leash_meta")} WHERE key = 'schema_version'`);
        assert.equal(version.rows[0]?.value, String(POSTGRES_SCHEMA_VERSION));
        assert.deepEqual(
          page.runs.map((run) => run.runId),
          runIds,
          "every readable run, in the order created",
        );
        for (const run of page.runs) {
          const state = await store.load(run.runId);
          assert.ok(state !== null);
          assert.ok(run.change > 0);
          assert.deepEqual(run, summaryOf(state, run.change));
        }
        assert.deepEqual(
          (await store.summaries({ status: "failed" })).runs.map((run) => run.runId),
          ["old-3"],
        );
        // A save after the migration is a change after every filled one.
        const before = await store.changeSequence();
        await store.save(stateOf("old-4", { revision: 2 }), { expectedRevision: 1 });
        assert.deepEqual(
          (await store.summaries({ changedSince: before })).runs.map((run) => run.runId),
          ["old-4"],
        );
      } finally {
        await store.close();
        await dropSchema(url, schema);
      }
    });

    test("changeSequence() waits for a save that took a change number and has not committed, so changedSince misses nothing", async () => {
      const schema = freshSchemaName();
      const store = new PostgresStore({ connectionString: url, schema });
      const watcher = new PostgresStore({ connectionString: url, schema });
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        await store.create(stateOf("slow"));
        await store.create(stateOf("quick"));
        const seen = await watcher.changeSequence();
        assert.ok(seen >= 2);
        // The slow save takes its change number, then waits on the row lock held here.
        await locker.query("BEGIN");
        await locker.query(`SELECT 1 FROM ${table(schema, "leash_runs")} WHERE run_id = 'slow' FOR UPDATE`);
        const slow = store.save(stateOf("slow", { revision: 2 }), { expectedRevision: 1 });
        const waitingOn = async (event: string, text: string): Promise<boolean> =>
          Number(
            (
              await sql(
                url,
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = $1 AND query LIKE $2 AND pid <> pg_backend_pid()",
                [event, `%${text}%`],
              )
            ).rows[0]?.n,
          ) > 0;
        await until(
          () =>
            waitingOn("tuple", "leash_save_run").then(
              async (tuple) => tuple || waitingOn("transactionid", "leash_save_run"),
            ),
          "the slow save waits on the row lock",
        );
        // A quicker save commits with a later change number meanwhile.
        await store.save(stateOf("quick", { revision: 2 }), { expectedRevision: 1 });
        let read: number | undefined;
        const reading = watcher.changeSequence().then((value) => (read = value));
        await until(() => waitingOn("advisory", "leash_change_sequence"), "the watcher waits for the slow save");
        assert.equal(read, undefined, "no value while a lower change is uncommitted");
        // Nor does the watcher's wait hold up the other writers meanwhile.
        await store.save(stateOf("quick", { revision: 3 }), { expectedRevision: 2 });
        assert.equal(read, undefined);
        await locker.query("ROLLBACK");
        await slow;
        await reading;
        assert.ok(read !== undefined);
        const changed = await watcher.summaries({ changedSince: seen });
        assert.deepEqual(changed.runs.map((run) => run.runId).sort(), ["quick", "slow"]);
        assert.ok(
          changed.runs.every((run) => run.change <= read!),
          "both changes are at or below the value read",
        );
        assert.deepEqual((await watcher.summaries({ changedSince: read })).runs, []);
      } finally {
        await locker.end();
        await watcher.close();
        await store.close();
        await dropSchema(url, schema);
      }
    });
  });
});
