// When the SQLite store moves its write-ahead log into the database file: never inside a save (a
// checkpoint there would add fsyncs to a step), but before it creates a run once it has written
// enough, and when it closes. Read from the log itself: a checkpoint that copied every frame lets the
// next write start the log over, and the commits counted in it start again from that write.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { walCommits } from "./wal-commits.js";

async function withFile(body: (path: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-checkpoints-"));
  try {
    await body(join(directory, "runs.db"));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Saves a run `count` times, one commit each. */
async function saveMany(store: SqliteStore, runId: string, count: number): Promise<void> {
  await store.create(stateOf(runId));
  for (let revision = 2; revision <= count; revision++)
    await store.save(stateOf(runId, { revision }), { expectedRevision: revision - 1 });
}

describe("SqliteStore checkpoints", () => {
  test("hundreds of saves in a row go to the log without a checkpoint; the next run's create checkpoints first", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const before = walCommits(path);
      await saveMany(store, "long", 300);
      assert.equal(walCommits(path) - before, 300, "no save started the log over");
      await store.create(stateOf("next"));
      assert.equal(walCommits(path), 1, "the log started over with the create");
      assert.equal((await store.load("long"))?.revision, 300);
      await store.close();
    }));

  test("a few saves are not worth a checkpoint before a create", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const before = walCommits(path);
      await saveMany(store, "short", 10);
      await store.create(stateOf("next"));
      assert.equal(walCommits(path) - before, 11);
      await store.close();
    }));

  test("close checkpoints what the store wrote, also while another connection is reading the file", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const other = new Database(path);
      try {
        await saveMany(store, "closed", 5);
        // A read in progress keeps SQLite from checkpointing on its own when the store's connection
        // closes; its snapshot holds every frame, so the store's own checkpoint can copy them all.
        other.exec("BEGIN");
        other.prepare("SELECT count(*) FROM runs").get();
        await store.close();
        other.exec("COMMIT");
        other.prepare("INSERT INTO leash_meta (key, value) VALUES ('note', 'after close')").run();
        assert.equal(walCommits(path), 1, "the log started over after the close's checkpoint");
        const reopened = new SqliteStore(path);
        assert.equal((await reopened.load("closed"))?.revision, 5);
        await reopened.close();
      } finally {
        other.close();
      }
    }));
});
