// Exit statuses that tell a script what to do next: 1 only for problems found, 2 for what the
// command was given, 3 for a store that failed or was busy (try again).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";
import { payAgent } from "./pay-agent.js";

test("a busy SQLite store is a try-again failure: store_busy exits 3, not 2", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const db = join(folder.path, "app.db");
  const store = new SqliteStore(db);
  const paused = await payAgent(store).run("pay the invoice");
  await store.close();
  const holder = new Database(db);
  t.after(() => holder.close());
  holder.exec("BEGIN EXCLUSIVE");
  const approve = leash(["approve", paused.runId, "--as", "noor", "--db", db], { cwd: folder.path });
  holder.exec("ROLLBACK");
  assert.equal(errorLine(approve).code, "store_busy", approve.stderr);
  assert.equal(approve.status, 3, approve.stderr);
});

test("verify of a database that cannot be reached exits 3, apart from a trail with problems (1)", () => {
  const folder = tempFolder();
  try {
    for (const json of [[], ["--json"]]) {
      const result = leash(["verify", "--db", "postgres://nobody@127.0.0.1:1/leash?connect_timeout=2", ...json], {
        cwd: folder.path,
      });
      assert.equal(result.status, 3, result.stderr);
      assert.match(result.stderr, /store_failed/);
    }
  } finally {
    folder.remove();
  }
});

test("demo --db naming a directory is a clear error, not an internal one", () => {
  const folder = tempFolder();
  try {
    const directory = join(folder.path, "a-folder");
    mkdirSync(directory);
    const result = leash(["demo", "--db", directory], { cwd: folder.path });
    assert.equal(result.status, 2, result.stderr);
    const error = errorLine(result);
    assert.notEqual(error.code, "internal_error");
    assert.match(error.message, /directory|folder/);
  } finally {
    folder.remove();
  }
});

test("a --db PostgreSQL URL that does not parse is a usage error (exit 2, invalid_option), never internal_error", () => {
  const folder = tempFolder();
  try {
    for (const command of [["runs"], ["verify"], ["show", "r1"]]) {
      const result = leash([...command, "--db", "postgres://u:pw@[::1:1/x"], { cwd: folder.path });
      assert.equal(result.status, 2, result.stderr);
      assert.equal(errorLine(result).code, "invalid_option", result.stderr);
      assert.doesNotMatch(result.stderr, /pw/);
    }
  } finally {
    folder.remove();
  }
});
