// The pool a PostgresStore makes: `poolMax` connections at most, calls beyond that queue for a free
// connection instead of failing, and the wait has its own bound (`timeouts.acquireMs`), after which
// the call fails with `store_busy` having written nothing. No test waits on a clock it does not
// have to: a connection is held busy by a row lock the test takes and lets go of.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { isLeashError } from "../../src/index.js";
import { DEFAULT_POSTGRES_TIMEOUTS, PostgresStore } from "../../src/stores/postgres/index.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { until } from "../worker/worker-helpers.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "./database.js";

/**
 * Opens a store's connection (and its schema) by reads tried again while opening the connection
 * times out, so that a test of the pool's queue starts with the pool's connection open and idle.
 */
async function opened(store: PostgresStore): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await store.load("none");
      return;
    } catch (error) {
      if (Date.now() > deadline || !isLeashError(error)) throw error;
    }
  }
}

describe("PostgresStore poolMax", () => {
  test("poolMax is refused with invalid_option unless a positive integer, with a pool of yours, or given twice", () => {
    const pool = { connect() {}, query() {}, end() {} };
    const bad: unknown[][] = [
      [{ connectionString: "postgres://x", poolMax: 0 }],
      [{ connectionString: "postgres://x", poolMax: -3 }],
      [{ connectionString: "postgres://x", poolMax: 2.5 }],
      [{ connectionString: "postgres://x", poolMax: "4" }],
      [{ connectionString: "postgres://x", poolMax: Number.NaN }],
      [{ connectionString: "postgres://x", poolMax: Number.POSITIVE_INFINITY }],
      [{ connectionString: "postgres://x", poolMax: null }],
      [{ connectionString: "postgres://x" }, { poolMax: 0 }],
      [{ pool, poolMax: 4 }],
      [{ pool }, { poolMax: 4 }],
      [{ connectionString: "postgres://x", poolMax: 4 }, { poolMax: 4 }],
      [{ connectionString: "postgres://x", timeouts: { acquireMs: 0 } }],
      [{ connectionString: "postgres://x", timeouts: { acquireMs: 1.5 } }],
    ];
    for (const args of bad) {
      assert.throws(
        () => new PostgresStore(...(args as ConstructorParameters<typeof PostgresStore>)),
        (error) => isLeashError(error, "invalid_option"),
        JSON.stringify(args),
      );
    }
    assert.ok(new PostgresStore({ connectionString: "postgres://x", poolMax: 1 }));
    assert.ok(new PostgresStore({ connectionString: "postgres://x" }, { poolMax: 50 }));
    assert.equal(DEFAULT_POSTGRES_TIMEOUTS.acquireMs, 60_000);
  });
});

withPostgres("PostgresStore pool on PostgreSQL", (url) => {
  describe("PostgresStore pool on PostgreSQL", () => {
    /** The connections of one application name, as the server counts them. */
    const connectionsOf = async (name: string): Promise<number> =>
      Number(
        (await sql(url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [name])).rows[0]
          ?.n,
      );
    const named = (name: string): string => `${url}${url.includes("?") ? "&" : "?"}application_name=${name}`;

    test("more concurrent saves than poolMax connections queue and all complete, on at most poolMax connections", async () => {
      const schema = freshSchemaName();
      const name = schema.slice(-20);
      const store = new PostgresStore({ connectionString: named(name), schema, poolMax: 2 });
      try {
        const runIds = Array.from({ length: 40 }, (_, index) => `r${index}`);
        await Promise.all(runIds.map((runId) => store.create(stateOf(runId))));
        let most = 0;
        const saving = Promise.all(
          runIds.map((runId) => store.save(stateOf(runId, { revision: 2 }), { expectedRevision: 1 })),
        );
        const watching = (async () => {
          let done = false;
          void saving.finally(() => (done = true));
          while (!done) most = Math.max(most, await connectionsOf(name));
        })();
        await saving;
        await watching;
        assert.ok(most <= 2, `at most 2 connections, saw ${most}`);
        for (const runId of runIds) assert.equal((await store.load(runId))?.revision, 2);
      } finally {
        await store.close();
        await dropSchema(url, schema);
      }
    });

    test("a wait for a connection longer than connectMs queues; past acquireMs it fails with store_busy, writing nothing", async () => {
      const schema = freshSchemaName();
      const store = new PostgresStore({
        connectionString: url,
        schema,
        poolMax: 1,
        timeouts: { connectMs: 1_000, acquireMs: 60_000 },
      });
      const impatient = new PostgresStore({
        connectionString: url,
        schema,
        poolMax: 1,
        timeouts: { acquireMs: 50 },
      });
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        // Each store's one connection is opened before the test's clock matters: on a loaded machine,
        // opening it can take longer than these tight bounds, which is not what this test is about.
        await opened(store);
        await opened(impatient);
        await store.create(stateOf("held"));
        await store.create(stateOf("other"));
        // The run's row is locked from outside: a save of it holds the store's only connection.
        await locker.query("BEGIN");
        await locker.query(`SELECT 1 FROM ${pg.escapeIdentifier(schema)}.leash_runs WHERE run_id = 'held' FOR UPDATE`);
        const blocked = store.save(stateOf("held", { revision: 2 }), { expectedRevision: 1 });
        const blockedImpatient = impatient.save(stateOf("held", { revision: 2 }), { expectedRevision: 1 });
        // The two saves of the locked run race once the lock goes: one takes it, the other is stale.
        const bothSettled = Promise.allSettled([blocked, blockedImpatient]);
        await until(
          async () =>
            Number(
              (
                await sql(
                  url,
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%leash_save_run%' AND query NOT LIKE '%pg_stat_activity%'",
                )
              ).rows[0]?.n,
            ) >= 2,
          "both saves wait on the row lock",
        );
        // Queued behind the held connection: the impatient store gives up after acquireMs.
        await assert.rejects(
          impatient.save(stateOf("other", { revision: 2 }), { expectedRevision: 1 }),
          (error) => isLeashError(error, "store_busy") && /acquireMs/.test((error as Error).message),
        );
        // The patient one waits past its connectMs (1 s) without failing.
        const queued = store.save(stateOf("other", { revision: 2 }), { expectedRevision: 1 });
        const since = Date.now();
        await until(() => Date.now() - since > 1_300, "the queued save has waited past connectMs");
        await locker.query("ROLLBACK");
        await queued;
        const settled = await bothSettled;
        assert.equal(settled.filter((result) => result.status === "fulfilled").length, 1);
        const lost = settled.find((result) => result.status === "rejected");
        assert.ok(isLeashError(lost?.reason, "stale_state"));
        assert.equal((await store.load("other"))?.revision, 2);
        assert.equal((await store.load("held"))?.revision, 2);
      } finally {
        await locker.end();
        await impatient.close();
        await store.close();
        await dropSchema(url, schema);
      }
    });
  });
});
