import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Agent, Decision, tool } from "../../src/index.js";
import type { RunState } from "../../src/index.js";
import { statePages } from "../../src/state/state-pages.js";
import type { PagedStates } from "../../src/state/state-pages.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const RUNS = 7;
const runIdOf = (run: number): string => `run-${run}`;

/** A SQLite store of {@link RUNS} finished runs, `run-0` to `run-6` in creation order, its file spoiled where asked. */
async function storeWith(t: { after(cleanup: () => unknown): void }, spoiled: readonly string[]): Promise<SqliteStore> {
  const folder = mkdtempSync(join(tmpdir(), "leash-state-pages-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "runs.db");
  const store = new SqliteStore(path);
  const agent = new Agent({
    tools: [tool({ name: "lookup", execute: () => "a page" })],
    planner: (state) => (state.steps.length === 0 ? Decision.act("lookup", {}) : Decision.finish("done")),
    store,
    audit: store,
  });
  for (let run = 0; run < RUNS; run++) await agent.run(`goal ${run}`, { runId: runIdOf(run) });
  await store.close();
  const database = new Database(path);
  const spoil = database.prepare("UPDATE runs SET state = '{\"version\": 99}' WHERE run_id = ?");
  for (const runId of spoiled) spoil.run(runId);
  database.close();
  const reopened = new SqliteStore(path);
  t.after(() => reopened.close());
  return reopened;
}

async function pagesOf(
  store: PagedStates,
  limit: number,
  onUnreadable?: (problem: { runId: string; error: Error }) => void,
): Promise<string[][]> {
  const pages: string[][] = [];
  const filters = onUnreadable === undefined ? {} : { onUnreadable };
  for await (const page of statePages(store, filters, limit)) pages.push(page.map((state: RunState) => state.runId));
  return pages;
}

test("statePages gives every stored run once, in creation order, a page of `limit` at a time", async (t) => {
  const store = await storeWith(t, []);
  assert.deepEqual(await pagesOf(store, 3), [["run-0", "run-1", "run-2"], ["run-3", "run-4", "run-5"], ["run-6"]]);
  assert.deepEqual(await pagesOf(store, RUNS), [[0, 1, 2, 3, 4, 5, 6].map(runIdOf)]);
});

test("statePages goes on past a page whose every state is unreadable, reporting each of them once", async (t) => {
  const store = await storeWith(t, ["run-3", "run-4", "run-5", "run-6"]);
  const unreadable: string[] = [];
  const pages = await pagesOf(store, 3, ({ runId, error }) => {
    assert.ok(error instanceof Error);
    unreadable.push(runId);
  });
  assert.deepEqual(pages, [["run-0", "run-1", "run-2"], [], []]);
  assert.deepEqual(unreadable, ["run-3", "run-4", "run-5", "run-6"]);
});

test("statePages keeps the filters on every page: only the runs whose id has the prefix", async (t) => {
  const store = await storeWith(t, []);
  const pages: string[][] = [];
  for await (const page of statePages(store, { runIdPrefix: "run-1" }, 1)) pages.push(page.map((state) => state.runId));
  assert.deepEqual(pages, [["run-1"]]);
});

test("statePages reads a store without summaries whole, in one page", async (t) => {
  const store = await storeWith(t, []);
  const asked: unknown[] = [];
  const own: PagedStates = {
    list: (options) => {
      asked.push(options);
      return store.list(options);
    },
  };
  assert.deepEqual(await pagesOf(own, 3), [[0, 1, 2, 3, 4, 5, 6].map(runIdOf)]);
  assert.deepEqual(asked, [{}]);
});

test("statePages stops after a page of more states than asked for: a store that ignores `limit` gave them all", async (t) => {
  const store = await storeWith(t, []);
  const careless: PagedStates = {
    list: () => store.list(),
    summaries: (options) => store.summaries(options),
  };
  assert.deepEqual(await pagesOf(careless, 3), [[0, 1, 2, 3, 4, 5, 6].map(runIdOf)]);
});
