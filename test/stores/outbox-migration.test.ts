// A SQLite file and a PostgreSQL schema written by the leash before the notification outbox (SQLite
// schema version 6, PostgreSQL 7, with that version's functions) are brought up to date when opened:
// their runs go on, every kind of save (alone, batched, with a budget charge) writes its events,
// and the outbox lists and claims them. A run paused before the upgrade has no event until its next
// save (an answer, say) while it still awaits the request.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { Approval } from "../../src/index.js";
import type { AuditSink, NotificationEvent, RunStore } from "../../src/index.js";
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from "../../src/stores/postgres/index.js";
import { SQLITE_SCHEMA_VERSION, SqliteStore } from "../../src/stores/sqlite/index.js";
import { functionDefinitions } from "../../src/stores/postgres/postgres-functions.js";
import { budgetFunctionDefinitions } from "../../src/stores/postgres/postgres-budget-functions.js";
import { postgresTables } from "../../src/stores/postgres/postgres-tables.js";
import { chain, headOf, stateOf, writerAgent } from "../contract/contract-fixtures.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";

type Store = RunStore & AuditSink & Required<Pick<RunStore, "notifications" | "claimNotifications" | "setBudget">>;

/** On the old schema: a run paused for approval. */
async function pausedBefore(store: RunStore & AuditSink): Promise<string> {
  const paused = await writerAgent(store, []).run("save the report", { runId: "before" });
  return paused.pending!.digest;
}

async function events(store: Store): Promise<NotificationEvent[]> {
  return (await store.notifications({ limit: 100 })).events.toReversed();
}

/** What the migrated store does: the old run resumes and ends, new runs pause, a charged save ends a run. */
async function writesEvents(store: Store, digest: string): Promise<void> {
  assert.deepEqual(await events(store), [], "a run paused before the upgrade has no event");
  await store.answer("before", Approval.grant(digest, "allen"));
  assert.equal((await writerAgent(store, []).resume("before")).status, "completed");
  // Several pauses at once: on PostgreSQL they may travel in one batch of saves.
  await Promise.all(["n1", "n2", "n3"].map((runId) => writerAgent(store, []).run("save the report", { runId })));
  await store.setBudget("team", { maxCost: 10 });
  const first = chain("charged", 1);
  await store.create(stateOf("charged", { head: headOf(first) }), { records: first });
  await store.save(stateOf("charged", { revision: 2, status: "completed", head: headOf(first) }), {
    expectedRevision: 1,
    budgetCharge: { key: "team", cost: 1, tokens: 0, toolCalls: 0, check: "none" },
  });
  const written = await events(store);
  assert.deepEqual(written.map((event) => `${event.runId} ${event.type}`).sort(), [
    // The answer's save (the run still awaiting it) was the first to say so since the upgrade.
    "before approval_requested",
    "before run_ended",
    "charged run_ended",
    "n1 approval_requested",
    "n2 approval_requested",
    "n3 approval_requested",
  ]);
  const claimed = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 10, leaseMs: 60_000 });
  assert.equal(claimed.length, 6);
}

describe("a store from before the notification outbox", () => {
  test(`a SQLite file of schema version 6 is brought to version ${SQLITE_SCHEMA_VERSION} when opened, and writes events`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "leash-outbox-migration-"));
    try {
      const path = join(folder, "old.db");
      const first = new SqliteStore(path);
      let digest: string;
      try {
        digest = await pausedBefore(first);
      } finally {
        await first.close();
      }
      // Back to version 6, as the leash before the outbox left it.
      const raw = new Database(path);
      raw.exec("DROP TABLE leash_outbox; UPDATE leash_meta SET value = '6' WHERE key = 'schema_version'");
      raw.close();
      const store = new SqliteStore(path) as Store;
      try {
        await writesEvents(store, digest);
      } finally {
        await store.close();
      }
      const opened = new Database(path, { readonly: true });
      assert.deepEqual(opened.prepare("SELECT value FROM leash_meta WHERE key = 'schema_version'").get(), {
        value: String(SQLITE_SCHEMA_VERSION),
      });
      opened.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  withPostgres("outbox migration on PostgreSQL", (url) => {
    test(`a PostgreSQL schema of version 7 is brought to version ${POSTGRES_SCHEMA_VERSION} when opened, and writes events`, async () => {
      const schema = freshSchemaName();
      const tables = postgresTables(schema);
      const table = (name: string) => `${pg.escapeIdentifier(schema)}.${name}`;
      try {
        const first = new PostgresStore({ connectionString: url, schema });
        let digest: string;
        try {
          digest = await pausedBefore(first);
        } finally {
          await first.close();
        }
        // Back to version 7, with that version's functions, as the leash before the outbox left it.
        const records = "text[], bigint[], text[], text[], text[]";
        const save = `text, bigint, bigint, text, integer, text, integer, boolean, integer[], text[], text, text, ${records}`;
        await sql(
          url,
          `DROP FUNCTION ${tables.saveRunCharged}(${save}, text, double precision, double precision, double precision, text, text);
           DROP FUNCTION ${tables.saveRun}(${save}, text);
           DROP FUNCTION ${tables.createRun}(text, bigint, text, integer, text, integer, integer[], text[], text, text, ${records}, text);
           DROP FUNCTION ${tables.addEvents}(text, text);
           DROP TABLE ${tables.outbox};
           ${functionDefinitions(tables)}
           ${budgetFunctionDefinitions(tables)}
           UPDATE ${table("leash_meta")} SET value = '7' WHERE key = 'schema_version'`,
        );
        const store = new PostgresStore({ connectionString: url, schema, poolMax: 1 }) as Store;
        try {
          await writesEvents(store, digest);
        } finally {
          await store.close();
        }
        const version = await sql(url, `SELECT value FROM ${table("leash_meta")} WHERE key = 'schema_version'`);
        assert.equal(version.rows[0]?.value, String(POSTGRES_SCHEMA_VERSION));
        const functions = await sql(
          url,
          `SELECT proname, count(*)::int AS forms FROM pg_proc WHERE pronamespace = $1::regnamespace
           AND proname IN ('leash_save_run', 'leash_create_run', 'leash_save_run_charged') GROUP BY proname ORDER BY proname`,
          [pg.escapeIdentifier(schema)],
        );
        assert.deepEqual(
          functions.rows.map((row: { proname: string; forms: number }) => [row.proname, row.forms]),
          [
            ["leash_create_run", 1],
            ["leash_save_run", 1],
            ["leash_save_run_charged", 1],
          ],
          "the forms without the events are gone",
        );
      } finally {
        await dropSchema(url, schema);
      }
    });
  });
});
