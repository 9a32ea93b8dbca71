// `list({ runIdPrefix })` reads a range of an index on run ids, in SQLite and PostgreSQL alike: the
// plans of the very queries the stores run, on tables with many runs of other prefixes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { listQuery } from "../../src/stores/sqlite/sqlite-runs.js";
import { listFilter, selectRuns } from "../../src/stores/postgres/postgres-runs.js";
import { postgresTables } from "../../src/stores/postgres/postgres-tables.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { freshStore, withPostgres } from "../postgres/database.js";

const RUNS = 200;

test("SQLite: a listing by runIdPrefix searches the primary key's index, alone or with a status", async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-prefix-"));
  const file = join(directory, "runs.db");
  const store = new SqliteStore(file);
  try {
    for (let index = 0; index < RUNS; index += 1)
      await store.create(stateOf(`run-${index}`, { status: index % 2 === 0 ? "awaiting_approval" : "running" }));
    await store.create(stateOf("mcp-abc-1", { status: "awaiting_approval" }));
    assert.deepEqual(
      (await store.list({ runIdPrefix: "mcp-abc-" })).map((state) => state.runId),
      ["mcp-abc-1"],
    );
    const raw = new Database(file);
    try {
      raw.exec("ANALYZE");
      for (const filter of [{ runIdPrefix: "mcp-abc-" }, { runIdPrefix: "mcp-abc-", status: "awaiting_approval" }]) {
        const { sql, values } = listQuery(filter);
        const plan = raw
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...values)
          .map((row) => (row as { detail: string }).detail)
          .join("\n");
        assert.match(plan, /SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(run_id>\? AND run_id<\?\)/, plan);
      }
    } finally {
      raw.close();
    }
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

withPostgres("PostgreSQL: a listing by runIdPrefix reads the index of run ids", (url) => {
  test("PostgreSQL: a listing by runIdPrefix is an index range on run ids in byte order (schema version 3)", async () => {
    const { store, schema, cleanup } = freshStore(url);
    try {
      for (let index = 0; index < RUNS; index += 1)
        await store.create(stateOf(`run-${index}`, { status: index % 2 === 0 ? "awaiting_approval" : "running" }));
      await store.create(stateOf("mcp-a%c-1", { status: "awaiting_approval" }));
      assert.deepEqual(
        (await store.list({ runIdPrefix: "mcp-a%c-" })).map((state) => state.runId),
        ["mcp-a%c-1"],
      );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`ANALYZE ${postgresTables(schema).runs}`);
        // On a table this small a sequential scan may cost less: the plan is asked whether the index answers it.
        await client.query("SET enable_seqscan = off");
        const { where, values } = listFilter({ runIdPrefix: "mcp-a%c-" });
        const plan = (await client.query(`EXPLAIN ${selectRuns(postgresTables(schema), where)}`, values)).rows
          .map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"])
          .join("\n");
        assert.match(plan, /Index Scan (using|on) leash_runs_by_id_bytes/, plan);
        assert.match(plan, /Index Cond: .*run_id ~>=~ 'mcp-a%c-'::text.*run_id ~<~ 'mcp-a%c\.'::text/, plan);
      } finally {
        await client.end();
      }
    } finally {
      await cleanup();
    }
  });
});
