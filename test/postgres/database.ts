// Where the PostgreSQL tests find their database, and what they do without one: outside CI they are
// skipped, loudly; in CI (CI=true) they fail, because a CI run that skipped them would pass while
// proving nothing about PostgreSQL.
import { test } from "node:test";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";

/** Whether these tests run in CI, where a missing database is a failure. */
export function inCi(): boolean {
  const value = process.env.CI;
  return value !== undefined && value !== "" && value !== "false" && value !== "0";
}

/**
 * Defines PostgreSQL tests through `define(url)` when DATABASE_URL is set. Without it, defines one
 * test named `name` instead: skipped with the reason (and a console warning) outside CI, failing in CI.
 */
export function withPostgres(name: string, define: (url: string) => void): void {
  const url = process.env.DATABASE_URL;
  if (url !== undefined && url !== "") {
    define(url);
    return;
  }
  const reason = `DATABASE_URL is not set, so the PostgreSQL tests "${name}" did not run; \`npm test\` starts a throwaway server when PostgreSQL's server binaries are installed (apt-get install -y postgresql)`;
  if (inCi()) {
    test(name, () => {
      throw new Error(`${reason}. CI=true: PostgreSQL tests must run in CI (.ci/run starts a server).`);
    });
    return;
  }
  console.warn(`\n*** SKIPPED: ${reason}. ***\n`);
  test(name, { skip: reason }, () => undefined);
}

/** A schema name of its own for one test or test file, so runs can share a database. */
export function freshSchemaName(prefix = "leash_test"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs one SQL statement on its own connection (for tests that look at or tamper with the tables). */
export async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** A store on a fresh schema, and how to remove both. */
export function freshStore(url: string): { store: PostgresStore; schema: string; cleanup: () => Promise<void> } {
  const schema = freshSchemaName();
  const store = new PostgresStore({ connectionString: url, schema });
  return {
    store,
    schema,
    cleanup: async () => {
      await store.close();
      await dropSchema(url, schema);
    },
  };
}
