// The SQLite store's listings read summaries kept on every save: paging in each order, filters
// together, cursors, the change sequence, a file from schema version 3, unreadable rows, and the
// plans of the queries (an index for each, never a walk over every run's state).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Approval, isLeashError } from "../../src/index.js";
import type { RunState } from "../../src/index.js";
import type { ListOptions } from "../../src/stores/run-store.js";
import { cursorAfter, summaryOf } from "../../src/stores/run-summary.js";
import type { RunOrder, RunSummary } from "../../src/stores/run-summary.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { listingQuery } from "../../src/stores/sqlite/sqlite-list-query.js";
import { MIGRATIONS } from "../../src/stores/sqlite/sqlite-schema.js";
import { stateOf, writerAgent } from "../contract/contract-fixtures.js";

async function withFile(body: (path: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-summaries-"));
  try {
    await body(join(directory, "runs.db"));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const STATUSES = ["running", "awaiting_approval", "completed"] as const;

/** A state with the given status and update time (times repeat, so the updated order has ties). */
function runOf(index: number): RunState {
  const state = stateOf(`run-${String(index).padStart(3, "0")}-${index % 3 === 0 ? "a" : "b"}`, {
    status: STATUSES[index % 3],
  });
  state.updatedAt = `2026-01-01T00:00:0${index % 4}.000Z`;
  return state;
}

/** Every page of a listing, following `next`, and the pages' sizes. */
async function allPages(store: SqliteStore, options: ListOptions): Promise<{ runs: RunSummary[]; sizes: number[] }> {
  const runs: RunSummary[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.summaries({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    runs.push(...page.runs);
    sizes.push(page.runs.length);
    // The states of the same page: the same runs, in the same order.
    const states = await store.list({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    assert.deepEqual(
      states.map((state) => state.runId),
      page.runs.map((run) => run.runId),
    );
    if (page.next === undefined) return { runs, sizes };
    cursor = page.next;
  }
  throw new Error("The listing never ended.");
}

/** The expected order of states, as each order defines it. */
function ordered(states: RunState[], order: RunOrder): string[] {
  const ids = states.map((state) => state);
  if (order === "created_desc") ids.reverse();
  if (order === "updated_desc")
    ids.sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.runId < b.runId ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
  return ids.map((state) => state.runId);
}

describe("SqliteStore summaries", () => {
  test("pages in each order, ties in updatedAt included, give every run once, as summaryOf gives it, and list() the same runs", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const states = Array.from({ length: 23 }, (_, index) => runOf(index));
      for (const state of states) await store.create(state);
      for (const order of ["created_asc", "created_desc", "updated_desc"] as const) {
        for (const limit of [1, 5, 23]) {
          const { runs, sizes } = await allPages(store, { order, limit });
          assert.deepEqual(
            runs.map((run) => run.runId),
            ordered(states, order),
            `${order} by ${limit}`,
          );
          // Full pages have a next; a last page that is full is followed by an empty one.
          assert.equal(sizes.at(-1), 23 % limit === 0 ? 0 : 23 % limit);
        }
      }
      const { runs } = await store.summaries();
      for (const [index, run] of runs.entries()) assert.deepEqual(run, summaryOf(states[index]!, index + 1));
      await store.close();
    }));

  test("a status, a prefix and a cursor together page through exactly the runs that match", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const states = Array.from({ length: 40 }, (_, index) => runOf(index));
      for (const state of states) await store.create(state);
      for (const order of ["created_asc", "created_desc", "updated_desc"] as const) {
        const options = { order, status: "running" as const, runIdPrefix: "run-0", limit: 2 };
        const { runs } = await allPages(store, options);
        const expected = ordered(
          states.filter((state) => state.status === "running" && state.runId.startsWith("run-0")),
          order,
        );
        assert.deepEqual(
          runs.map((run) => run.runId),
          expected,
        );
        assert.ok(expected.length > 4);
      }
      // A prefix no stored id can start with (a lone surrogate) matches nothing.
      assert.deepEqual((await store.summaries({ runIdPrefix: "run-\uD800" })).runs, []);
      await store.close();
    }));

  test("a cursor made for another order, one that is not a cursor, and one after a run not in the store are refused", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      await store.create(runOf(1));
      const { next } = await store.summaries({ limit: 1 });
      assert.ok(next !== undefined);
      const invalid = (error: unknown) => isLeashError(error, "invalid_option");
      await assert.rejects(store.summaries({ cursor: next, order: "updated_desc" }), invalid);
      await assert.rejects(store.list({ cursor: next, order: "created_desc" }), invalid);
      await assert.rejects(store.summaries({ cursor: "not a cursor" }), invalid);
      const elsewhere = cursorAfter({ runId: "never-stored", createdAt: "x", updatedAt: "x" });
      await assert.rejects(store.summaries({ cursor: elsewhere }), invalid);
      await assert.rejects(store.list({ cursor: elsewhere }), invalid);
      await store.close();
    }));

  test("changedSince finds the runs created, saved or answered since a value of the change sequence, and nothing else", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      assert.equal(await store.changeSequence(), 0);
      for (let index = 0; index < 5; index++) await store.create(runOf(index));
      const written: string[] = [];
      const paused = await writerAgent(store, written).run("write the report", { runId: "paused" });
      assert.equal(paused.status, "awaiting_approval");
      const seen = await store.changeSequence();
      assert.deepEqual((await store.summaries({ changedSince: seen })).runs, []);
      // A refused save changes nothing, the sequence included.
      await assert.rejects(store.save(stateOf("run-001-b", { revision: 9 }), { expectedRevision: 8 }));
      assert.equal(await store.changeSequence(), seen);
      const saved = stateOf("run-001-b", { revision: 2 });
      await store.save(saved, { expectedRevision: 1 });
      await store.answer("paused", Approval.grant(paused.pending!.digest, "allen"));
      const changed = await store.summaries({ changedSince: seen });
      assert.deepEqual(
        changed.runs.map((run) => [run.runId, run.change, run.answers]),
        [
          ["run-001-b", seen + 1, 0],
          ["paused", seen + 2, 1],
        ],
      );
      assert.equal(changed.runs[1]?.pendingTool, "save");
      assert.equal(await store.changeSequence(), seen + 2);
      assert.deepEqual(
        (await store.list({ changedSince: seen + 1 })).map((state) => state.runId),
        ["paused"],
      );
      assert.equal((await store.summaries({ changedSince: 0 })).runs.length, 6);
      await store.close();
    }));

  test("a file of schema version 3 opens, lists every run with its summary from its state, and fills the summaries in", () =>
    withFile(async (path) => {
      // Made with the migrations version 3 ran, its rows written as that version wrote them.
      const old = new Database(path);
      old.pragma("journal_mode = WAL");
      old.exec("CREATE TABLE leash_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)");
      for (const migration of MIGRATIONS.slice(0, 3)) old.exec(migration);
      old.prepare("INSERT INTO leash_meta (key, value) VALUES ('schema_version', '3')").run();
      const states = Array.from({ length: 300 }, (_, index) => runOf(index));
      const insert = old.prepare(
        "INSERT INTO runs (run_id, position, status, revision, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
      );
      states.forEach((state, index) =>
        insert.run(state.runId, index + 1, state.status, state.revision, state.headerText(), state.updatedAt),
      );
      // One row whose state no leash can read: reported, never failing the listing.
      old.prepare("UPDATE runs SET state = '{\"version\": 7}' WHERE position = 2").run();
      old.close();

      const store = new SqliteStore(path);
      const unreadable: string[] = [];
      const page = await store.summaries({ onUnreadable: (problem) => unreadable.push(problem.runId) });
      assert.deepEqual(unreadable, [states[1]!.runId]);
      const readable = states.filter((_, index) => index !== 1);
      assert.deepEqual(
        page.runs,
        readable.map((state) => summaryOf(state, 1)),
      );
      assert.equal(await store.changeSequence(), 1);
      assert.equal((await store.summaries({ changedSince: 0 })).runs.length, 299);
      // The fill runs in the background, a batch a turn: wait for it, however long it takes.
      const raw = new Database(path, { readonly: true });
      const unfilled = raw.prepare<[], { count: number }>("SELECT count(*) AS count FROM runs WHERE summary IS NULL");
      while (unfilled.get()!.count > 1) await new Promise((resolve) => setImmediate(resolve));
      raw.close();
      assert.deepEqual((await store.summaries()).runs, page.runs);
      const saved = stateOf(states[5]!.runId, { revision: 2, status: states[5]!.status });
      await store.save(saved, { expectedRevision: 1 });
      assert.deepEqual((await store.summaries({ changedSince: 1 })).runs, [summaryOf(saved, 2)]);
      await store.close();
    }));

  test("a run whose state cannot be read is still reported by list(), and summaries() still shows it from its summary", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      for (let index = 0; index < 3; index++) await store.create(runOf(index));
      const raw = new Database(path);
      raw.prepare("UPDATE runs SET state = 'not json' WHERE run_id = ?").run(runOf(1).runId);
      raw.close();
      const reported: string[] = [];
      const states = await store.list({ onUnreadable: (problem) => reported.push(problem.runId) });
      assert.deepEqual(reported, [runOf(1).runId]);
      assert.equal(states.length, 2);
      const { runs } = await store.summaries({ onUnreadable: (problem) => reported.push(problem.runId) });
      assert.deepEqual(
        runs.map((run) => run.runId),
        [0, 1, 2].map((index) => runOf(index).runId),
      );
      assert.equal(reported.length, 1);
      await store.close();
    }));

  test("every listing's query reads an index: by position, status, update time or change, never every row", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      for (let index = 0; index < 50; index++) await store.create(runOf(index));
      await store.close();
      const raw = new Database(path);
      raw.exec("ANALYZE");
      const cursor = { order: "updated_desc" as const, key: "2026", runId: "run" };
      for (const order of ["created_asc", "created_desc", "updated_desc"] as const) {
        for (const status of [undefined, "running" as const]) {
          for (const changedSince of [undefined, 3]) {
            const after = order === "updated_desc" ? { cursor } : { cursor: { ...cursor, order }, position: 5 };
            const query = listingQuery({ order, status, changedSince, limit: 10, after }, "run_id, summary");
            const plan = raw
              .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
              .all(...query.values)
              .map((row) => (row as { detail: string }).detail)
              .join("\n");
            assert.match(plan, /SEARCH runs USING INDEX/, plan);
            assert.doesNotMatch(plan, /SCAN runs/, plan);
            if (changedSince === undefined) assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
          }
        }
      }
      raw.close();
    }));
});
