// What the SQLite store does beyond the shared contract: its file, its schema, its refusals of a
// broken chain, its handling of locks and driver errors, and what one agent step costs it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Agent, Decision, isLeashError, tool } from "../../src/index.js";
import type { ErrorCode } from "../../src/index.js";
import { SQLITE_SCHEMA_VERSION, SqliteStore } from "../../src/stores/sqlite/index.js";
import { chain, headOf, stateOf } from "../contract/contract-fixtures.js";
import { walCommits } from "./wal-commits.js";
import { importable } from "../helpers/node-child.js";

function temporaryFile(): { path: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-"));
  return { path: join(directory, "runs.db"), remove: () => rmSync(directory, { recursive: true, force: true }) };
}

async function withFile(body: (path: string) => Promise<void>): Promise<void> {
  const { path, remove } = temporaryFile();
  try {
    await body(path);
  } finally {
    remove();
  }
}

const refused = (code: ErrorCode) => (error: unknown) => isLeashError(error, code);

describe("SqliteStore", () => {
  test("importing leash does not load better-sqlite3; importing leash/sqlite does", () => {
    // One fresh process: what it has loaded after each import (of the run's compiled JavaScript, or
    // of the TypeScript under tsx).
    const core = importable(fileURLToPath(new URL("../../src/index.ts", import.meta.url)));
    const sqlite = importable(fileURLToPath(new URL("../../src/stores/sqlite/index.ts", import.meta.url)));
    const printed = execFileSync(
      process.execPath,
      [
        ...(core.loader.length > 0 ? core.loader : sqlite.loader),
        "--input-type=module",
        "-e",
        `const { createRequire } = await import("node:module");
         const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((key) => key.includes("better-sqlite3"));
         await import(${JSON.stringify(core.href)});
         const core = loaded();
         await import(${JSON.stringify(sqlite.href)});
         process.stdout.write(JSON.stringify({ core, sqlite: loaded() }));`,
      ],
      { encoding: "utf8" },
    );
    assert.deepEqual(JSON.parse(printed), { core: false, sqlite: true });
  });

  test("what is saved survives closing and reopening the file, which is in WAL mode at the current schema version", () =>
    withFile(async (path) => {
      const first = new SqliteStore(path);
      const records = chain("kept", 2);
      await first.create(stateOf("kept", { head: headOf(records) }), { records });
      await first.close();
      const second = new SqliteStore(path);
      assert.equal((await second.load("kept"))?.runId, "kept");
      assert.deepEqual(second.records, records);
      await second.close();
      const raw = new Database(path);
      assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
      assert.deepEqual(raw.prepare("SELECT value FROM leash_meta WHERE key = 'schema_version'").get(), {
        value: String(SQLITE_SCHEMA_VERSION),
      });
      raw.close();
    }));

  test("a database of schema version 1 is brought up to date, and its records without a digest column still give the chain's head", () =>
    withFile(async (path) => {
      const first = new SqliteStore(path);
      const records = chain("old", 2);
      await first.append(records);
      await first.close();
      // As a version 1 database holds them: no digest column, so none in the rows.
      const raw = new Database(path);
      // And without what later versions added (the log's column, index and tables; the summaries'
      // columns, indexes and change sequence).
      raw.exec(
        "DROP INDEX runs_by_updated; DROP INDEX runs_by_status_updated; DROP INDEX runs_by_change; DROP INDEX runs_without_summary;" +
          "ALTER TABLE runs DROP COLUMN summary; ALTER TABLE runs DROP COLUMN change; DROP TABLE leash_changes;" +
          "DROP INDEX audit_by_leaf; ALTER TABLE audit DROP COLUMN leaf_index; DROP TABLE leash_log_nodes; DROP TABLE leash_checkpoints;" +
          "ALTER TABLE audit DROP COLUMN digest; UPDATE leash_meta SET value = '1' WHERE key = 'schema_version'",
      );
      raw.close();
      const second = new SqliteStore(path);
      const next = chain("old", 1, records[1] ?? null);
      await second.append(next);
      await assert.rejects(second.append(next), refused("stale_state"));
      assert.deepEqual(await second.read("old"), [...records, ...next]);
      await second.close();
    }));

  test("a database from a newer leash is refused (unsupported_version), and so is a file that is not a database", () =>
    withFile(async (path) => {
      await new SqliteStore(path).close();
      const raw = new Database(path);
      raw.prepare("UPDATE leash_meta SET value = '99' WHERE key = 'schema_version'").run();
      raw.close();
      assert.throws(() => new SqliteStore(path), refused("unsupported_version"));
      writeFileSync(
        `${path}.txt`,
        "this is not a database, only some text that is long enough to have a header".repeat(20),
      );
      assert.throws(
        () => new SqliteStore(`${path}.txt`),
        (error) => isLeashError(error, "store_failed") && error.cause instanceof Error,
      );
    }));

  test("options are checked when the store is built", () => {
    assert.throws(() => new SqliteStore(""), refused("invalid_option"));
    assert.throws(() => new SqliteStore(":memory:", { busyTimeoutMs: -1 }), refused("invalid_option"));
    assert.throws(() => new SqliteStore(":memory:", { busyTimeoutMs: 1.5 }), refused("invalid_option"));
  });

  test("a closed store refuses every call with store_failed; closing twice is harmless", async () => {
    const store = new SqliteStore(":memory:");
    await store.close();
    await store.close();
    await assert.rejects(store.load("x"), refused("store_failed"));
    await assert.rejects(store.create(stateOf("x")), refused("store_failed"));
    await assert.rejects(store.save(stateOf("x", { revision: 2 }), { expectedRevision: 1 }), refused("store_failed"));
    await assert.rejects(store.list(), refused("store_failed"));
    await assert.rejects(store.append(chain("x", 1)), refused("store_failed"));
    await assert.rejects(store.read(), refused("store_failed"));
    assert.throws(() => store.records, refused("store_failed"));
  });

  test("a save whose records repeat a seq the trail holds is refused with stale_state, and its state is not written", async () => {
    const store = new SqliteStore(":memory:");
    const start = chain("moved", 1);
    await store.create(stateOf("moved", { head: headOf(start) }), { records: start });
    // Another writer extended the chain through append (as with a separate store) ...
    const theirs = chain("moved", 1, start[0], "theirs");
    await store.append(theirs);
    // ... so a save carrying this writer's record at the same seq must not land, state included.
    const mine = chain("moved", 1, start[0], "mine");
    await assert.rejects(
      store.save(stateOf("moved", { revision: 2, goal: "mine", head: headOf(mine) }), {
        expectedRevision: 1,
        records: mine,
      }),
      refused("stale_state"),
    );
    assert.equal((await store.load("moved"))?.revision, 1);
    assert.deepEqual(await store.read("moved"), [...start, ...theirs]);
    await store.close();
  });

  test("records that skip a seq or link to another record are refused (audit_corrupt), the whole batch unwritten", async () => {
    const store = new SqliteStore(":memory:");
    const records = chain("gaps", 4);
    await assert.rejects(store.append([records[0]!, records[2]!]), refused("audit_corrupt"));
    await assert.rejects(store.append([records[1]!]), refused("audit_corrupt"));
    const forged = { ...records[1]!, prev: "0".repeat(64) };
    await store.append([records[0]!]);
    await assert.rejects(store.append([forged]), refused("audit_corrupt"));
    await assert.rejects(store.append([records[1]!, { ...records[2]!, v: 2 } as never]), refused("audit_corrupt"));
    assert.deepEqual(await store.read("gaps"), [records[0]]);
    await store.append(records.slice(1));
    assert.deepEqual(await store.read("gaps"), records);
    await store.close();
  });

  test("a row changed behind the store's back is refused when read, naming the run and seq", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const records = chain("tampered", 2);
      await store.create(stateOf("tampered", { head: headOf(records) }), { records });
      const raw = new Database(path);
      raw.prepare("UPDATE audit SET record = '{\"not\": \"a record\"}' WHERE run_id = 'tampered' AND seq = 1").run();
      raw.prepare("UPDATE runs SET state = '{\"version\": 7}' WHERE run_id = 'tampered'").run();
      raw.close();
      await assert.rejects(
        store.read("tampered"),
        (error) =>
          isLeashError(error, "audit_corrupt") && error.details.seq === 1 && error.details.runId === "tampered",
      );
      assert.throws(() => store.records, refused("audit_corrupt"));
      await assert.rejects(store.load("tampered"), refused("unsupported_version"));
      await store.close();
    }));

  test("a write lock held past the busy timeout: every write is store_busy (not a lost race) and writes nothing, reads go on", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path, { busyTimeoutMs: 50 });
      await store.create(stateOf("locked"));
      const other = new Database(path);
      other.exec("BEGIN IMMEDIATE");
      const busy = (error: unknown): boolean =>
        isLeashError(error, "store_busy") && error.details.driverCode === "SQLITE_BUSY";
      try {
        await assert.rejects(store.save(stateOf("locked", { revision: 2 }), { expectedRevision: 1 }), busy);
        await assert.rejects(store.create(stateOf("second")), busy);
        await assert.rejects(store.append(chain("third", 1)), busy);
        assert.equal((await store.load("locked"))?.revision, 1);
      } finally {
        other.exec("ROLLBACK");
        other.close();
      }
      await store.save(stateOf("locked", { revision: 2 }), { expectedRevision: 1 });
      await store.close();
    }));

  test("list refuses a status that is not one", async () => {
    const store = new SqliteStore(":memory:");
    await assert.rejects(store.list({ status: "paused" as never }), refused("invalid_option"));
    await store.close();
  });

  test("each save is one transaction, and an agent's tool step commits two: the intent before the call, the result after", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const baseline = walCommits(path);
      await store.create(stateOf("counted"));
      for (let revision = 2; revision <= 6; revision++)
        await store.save(stateOf("counted", { revision }), { expectedRevision: revision - 1 });
      assert.equal(walCommits(path) - baseline, 6);

      const steps = 5;
      const lookup = tool({ name: "lookup", parameters: { type: "object", properties: {} }, execute: () => "page" });
      const agent = new Agent({
        tools: [lookup],
        planner: (state) => (state.steps.length < steps ? Decision.act("lookup", {}) : Decision.finish("done")),
        store,
        audit: store,
      });
      const before = walCommits(path);
      const state = await agent.run("look it up", { runId: "stepped" });
      assert.equal(state.status, "completed");
      // One commit creates the run, two per tool step, one ends it.
      assert.equal(walCommits(path) - before, 1 + 2 * steps + 1);
      await store.close();
    }));
});
