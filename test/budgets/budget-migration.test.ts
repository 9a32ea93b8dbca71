// A SQLite file and a PostgreSQL schema written by the leash before shared budgets (SQLite schema
// version 5, PostgreSQL 6) are brought up to date when opened: they take budgets, their runs'
// saves carry charges, and their trails, budgets' records included, still verify.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { isLeashError, verifyAudit } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from "../../src/stores/postgres/index.js";
import { SQLITE_SCHEMA_VERSION, SqliteStore } from "../../src/stores/sqlite/index.js";
import { chain, headOf, stateOf } from "../contract/contract-fixtures.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";

type Store = RunStore & AuditSink & Required<Pick<RunStore, "setBudget" | "budget">>;

/** A run made on the old schema, saved once there. */
async function oldRun(store: RunStore & AuditSink): Promise<void> {
  const first = chain("old", 2);
  await store.create(stateOf("old", { head: headOf(first) }), { records: first });
}

/** What a migrated store must do: take a budget, and a charged save of the old run, refused past the limit. */
async function takesBudgets(store: Store): Promise<void> {
  const before = await store.read("old");
  await store.setBudget("team-a", { maxToolCalls: 1 }, { by: "noor" });
  const next = chain("old", 2, before.at(-1), "tool_started");
  const save = (revision: number, records: typeof next) =>
    store.save(stateOf("old", { revision: revision + 1, head: headOf(records) }), {
      expectedRevision: revision,
      records,
      budgetCharge: { key: "team-a", cost: 0, tokens: 0, toolCalls: 1, check: "tool" },
    });
  await save(1, next.slice(0, 1));
  await assert.rejects(save(2, next.slice(1)), (error: unknown) => isLeashError(error, "limit_reached"));
  assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 0, tokens: 0, toolCalls: 1 });
  assert.equal((await store.load("old"))?.revision, 2);
  assert.deepEqual(
    (await store.read("budget:team-a")).map((record) => record.event),
    ["budget_set"],
  );
  assert.deepEqual(verifyAudit(await store.read()), []);
}

describe("a store from before shared budgets", () => {
  test(`a SQLite file of schema version 5 is brought to version ${SQLITE_SCHEMA_VERSION} when opened, and takes budgets`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "leash-budget-migration-"));
    try {
      const path = join(folder, "old.db");
      const first = new SqliteStore(path);
      try {
        await oldRun(first);
      } finally {
        await first.close();
      }
      // Back to version 5, as the leash before budgets left it.
      const raw = new Database(path);
      raw.exec("DROP TABLE leash_budgets; UPDATE leash_meta SET value = '5' WHERE key = 'schema_version'");
      raw.close();
      const store = new SqliteStore(path);
      try {
        await takesBudgets(store);
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

  withPostgres("budget migration on PostgreSQL", (url) => {
    test("a PostgreSQL schema of version 6 is brought to the current version when opened, and takes budgets", async () => {
      const schema = freshSchemaName();
      const table = (name: string) => `${pg.escapeIdentifier(schema)}.${name}`;
      try {
        const first = new PostgresStore({ connectionString: url, schema });
        try {
          await oldRun(first);
        } finally {
          await first.close();
        }
        // Back to version 6, as the leash before budgets left it.
        await sql(
          url,
          `DROP FUNCTION ${table("leash_save_run_charged")}, ${table("leash_charge_budget")};
           DROP TABLE ${table("leash_budgets")};
           UPDATE ${table("leash_meta")} SET value = '6' WHERE key = 'schema_version'`,
        );
        const store = new PostgresStore({ connectionString: url, schema });
        try {
          await takesBudgets(store);
        } finally {
          await store.close();
        }
        const version = await sql(url, `SELECT value FROM ${table("leash_meta")} WHERE key = 'schema_version'`);
        assert.equal(version.rows[0]?.value, String(POSTGRES_SCHEMA_VERSION));
      } finally {
        await dropSchema(url, schema);
      }
    });
  });
});
