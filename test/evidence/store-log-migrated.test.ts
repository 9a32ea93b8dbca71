// A database made by the leash before the log (schema version 2: main at 5f1ea7b wrote both fixtures,
// a SQLite file and a pg_dump of a PostgreSQL schema) is migrated when opened, and its records are
// sequenced in the order they were written, rows from before the digest column included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { signCheckpoint, verifyAudit, verifyCheckpoint, type AuditRecord } from "../../src/index.js";
import { evidenceLogOf } from "../../src/evidence/index.js";
import { SQLITE_SCHEMA_VERSION, SqliteStore } from "../../src/stores/sqlite/index.js";
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from "../../src/stores/postgres/index.js";
import { temporaryDirectory } from "../audit/audit-test-helpers.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { specCheckpoint, specLeaf, specOpenNote, specRoot } from "./spec-checker.js";
import { origin, runsOf, signerKey, verifierKey, type LogStore } from "./store-log-suite.js";

const fixture = (name: string): string => new URL(`../fixtures/evidence/${name}`, import.meta.url).pathname;
const leavesOf = (records: readonly AuditRecord[]): Buffer[] =>
  records.map((record) => specLeaf(Buffer.from(record.digest, "hex")));

/** Checks that the store's 15 old records are the log's first leaves, in the order written, and that it goes on. */
async function checkMigratedLog(store: LogStore): Promise<void> {
  const old = await store.read();
  assert.equal(old.length, 15);
  assert.deepEqual(verifyAudit(old), []);
  const log = evidenceLogOf(store);
  assert.equal(await log.sequence(), 15);
  for (const [index, record] of old.entries()) assert.equal(await log.leafIndexOf(record.run, record.seq), index);
  const note = await signCheckpoint(store, { key: signerKey, origin });
  const checkpoint = specCheckpoint(specOpenNote(note, verifierKey)!);
  assert.equal(checkpoint.root.toString("hex"), specRoot(leavesOf(old)).toString("hex"));
  await store.append(runsOf("new", 2));
  const later = specCheckpoint(specOpenNote(await signCheckpoint(store, { key: signerKey, origin }), verifierKey)!);
  assert.equal(later.root.toString("hex"), specRoot(leavesOf(await store.read())).toString("hex"));
  assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
}

test("a SQLite file of schema version 2 is migrated when opened and its records are sequenced in the order written", async () => {
  const path = join(temporaryDirectory(), "main-v2.db");
  copyFileSync(fixture("main-v2.db"), path);
  // Rows written before the digest column had one of their own: their leaf comes from their text.
  const before = new Database(path);
  before.exec("UPDATE audit SET digest = NULL WHERE position <= 4");
  before.close();
  const store = new SqliteStore(path);
  try {
    await checkMigratedLog(store);
  } finally {
    await store.close();
  }
  const after = new Database(path, { readonly: true });
  assert.deepEqual(after.prepare("SELECT value FROM leash_meta WHERE key = 'schema_version'").get(), {
    value: String(SQLITE_SCHEMA_VERSION),
  });
  after.close();
});

withPostgres("a PostgreSQL schema of version 2 is sequenced", (url) => {
  test("a PostgreSQL schema of version 2 is migrated when first used and its records are sequenced in the order written", async () => {
    const schema = freshSchemaName();
    await sql(url, readFileSync(fixture("main-v2-postgres.sql"), "utf8").replaceAll("{schema}", `"${schema}"`));
    await sql(url, `UPDATE "${schema}".leash_audit SET digest = NULL WHERE position <= 4`);
    const store = new PostgresStore({ connectionString: url, schema });
    try {
      await checkMigratedLog(store);
      const version = await sql(url, `SELECT value FROM "${schema}".leash_meta WHERE key = 'schema_version'`);
      assert.equal(version.rows[0]?.value, String(POSTGRES_SCHEMA_VERSION));
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });
});
