// What PostgresStore promises beyond the shared contract: lazy connection, options checked at once,
// tables in a schema of their own created once however many processes race, no raw driver error,
// exact round trips of awkward text, and a pool it was given left open.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { isLeashError, makeRecord, verifyAudit } from "../../src/index.js";
import type { AuditRecord, LeashError } from "../../src/index.js";
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from "../../src/stores/postgres/index.js";
import type { PostgresPool } from "../../src/stores/postgres/index.js";
import { chain, headOf, stateOf } from "../contract/contract-fixtures.js";
import { workerAgent } from "../fixtures/postgres/worker-agent.js";
import { approvedRuns } from "../worker/worker-helpers.js";
import { dropSchema, freshSchemaName, freshStore, sql, withPostgres } from "./database.js";

const refused = (code: LeashError["code"]) => (error: unknown) => isLeashError(error, code);

describe("PostgresStore options", () => {
  test("the constructor connects to nothing: a server that is not there is reported as store_failed at first use", async () => {
    const store = new PostgresStore({ connectionString: "postgres://nobody@127.0.0.1:1/nowhere" });
    await assert.rejects(
      store.load("r1"),
      (error) => isLeashError(error, "store_failed") && !(error as Error).message.includes("undefined"),
    );
    await store.close();
  });

  test("bad options are refused at construction with invalid_option, naming the option", () => {
    const bad: unknown[][] = [
      [{ connectionString: "" }],
      [{}],
      [{ connectionString: undefined }],
      [{ connectionString: "postgres://x", pool: { connect() {}, query() {}, end() {} } }],
      [{ pool: {} }],
      [{ connectionString: "postgres://x", schema: "" }],
      [{ connectionString: "postgres://x", schema: "s".repeat(64) }],
      [{ connectionString: "postgres://x", schema: "a" }, { schema: "b" }],
    ];
    for (const args of bad) {
      assert.throws(
        () => new PostgresStore(...(args as ConstructorParameters<typeof PostgresStore>)),
        refused("invalid_option"),
        JSON.stringify(args),
      );
    }
    assert.equal(new PostgresStore({ connectionString: "postgres://x" }).schema, "public");
    assert.equal(new PostgresStore({ connectionString: "postgres://x", schema: "a" }, { schema: "a" }).schema, "a");
  });
});

withPostgres("PostgresStore on PostgreSQL", (url) => {
  describe("PostgresStore on PostgreSQL", () => {
    test("creates its schema and tables on first use, records the schema version, and quotes the schema's name", async () => {
      const schema = `${freshSchemaName('Leash "Odd"')}`;
      const store = new PostgresStore({ connectionString: url, schema });
      try {
        assert.equal(
          (await sql(url, "SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rowCount,
          0,
          "nothing before first use",
        );
        await store.create(stateOf("r1"));
        const tables = await sql(
          url,
          "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
          [schema],
        );
        assert.deepEqual(
          tables.rows.map((row: { table_name: string }) => row.table_name),
          [
            "leash_audit",
            "leash_budgets",
            "leash_checkpoints",
            "leash_grants",
            "leash_log_nodes",
            "leash_meta",
            "leash_outbox",
            "leash_runs",
            "leash_steps",
          ],
        );
        const version = await sql(
          url,
          `SELECT value FROM ${pg.escapeIdentifier(schema)}.leash_meta WHERE key = 'schema_version'`,
        );
        assert.equal(version.rows[0]?.value, String(POSTGRES_SCHEMA_VERSION));
        assert.equal((await store.load("r1"))?.runId, "r1");
      } finally {
        await store.close();
        await dropSchema(url, schema);
      }
    });

    test("twelve stores with pools of their own creating one new schema at once all succeed, and the tables are made once", async () => {
      const schema = freshSchemaName();
      const stores = Array.from({ length: 12 }, () => new PostgresStore({ connectionString: url, schema }));
      try {
        await Promise.all(stores.map((store, index) => store.create(stateOf(`r${index}`))));
        assert.equal((await stores[0]!.list()).length, 12);
        const meta = await sql(url, `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.leash_meta`);
        assert.equal(meta.rows[0]?.n, 1);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await dropSchema(url, schema);
      }
    });

    test("a schema written by a newer leash is refused with unsupported_version, and nothing is written", async () => {
      const { store, schema, cleanup } = freshStore(url);
      try {
        await store.create(stateOf("r1"));
        await sql(
          url,
          `UPDATE ${pg.escapeIdentifier(schema)}.leash_meta SET value = '99' WHERE key = 'schema_version'`,
        );
        const later = new PostgresStore({ connectionString: url, schema });
        await assert.rejects(later.create(stateOf("r2")), refused("unsupported_version"));
        await later.close();
        assert.equal(
          (await sql(url, `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.leash_runs`)).rows[0]?.n,
          1,
        );
      } finally {
        await cleanup();
      }
    });

    test("close ends the pool it made, leaves a given pool open, and later calls are refused", async () => {
      const schema = freshSchemaName();
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        const store = new PostgresStore({ pool, schema });
        await store.create(stateOf("r1"));
        await store.close();
        await store.close();
        assert.equal((await pool.query("SELECT 1 AS one")).rows[0]?.one, 1);
        await assert.rejects(store.load("r1"), refused("store_failed"));
        const own = new PostgresStore({ connectionString: url, schema });
        assert.equal((await own.load("r1"))?.runId, "r1");
        await own.close();
        await assert.rejects(own.list(), refused("store_failed"));
      } finally {
        await dropSchema(url, schema);
        await pool.end();
      }
    });

    test("states and records round-trip exactly: NUL, line separators, __proto__ keys and big numbers", async () => {
      const { store, cleanup } = freshStore(url);
      try {
        const data = JSON.parse(
          '{"__proto__":{"polluted":true},"constructor":"c","text":"a\\u0000b\\u2028c\\nd","big":1e+30,"tiny":5e-324}',
        ) as unknown;
        const first = makeRecord("odd", null, "run_started", data, "2026-01-01T00:00:00.000Z");
        await store.create(stateOf("odd", { head: headOf([first]), goal: "nul \u0000 and \u2028" }), {
          records: [first],
        });
        const [back] = await store.read("odd");
        assert.deepEqual(back, first);
        assert.equal(Object.getPrototypeOf(back?.data), Object.prototype);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.deepEqual(verifyAudit(await store.read()), []);
        assert.equal((await store.load("odd"))?.goal, "nul \u0000 and \u2028");
      } finally {
        await cleanup();
      }
    });

    test("a stored row that is not a record is audit_corrupt; a changed record is found by verifyAudit", async () => {
      const { store, schema, cleanup } = freshStore(url);
      try {
        const records = chain("t1", 3);
        await store.append(records);
        const table = `${pg.escapeIdentifier(schema)}.leash_audit`;
        await sql(
          url,
          `UPDATE ${table} SET record = replace(record, '"index":1', '"index":7') WHERE run_id = 't1' AND seq = 1`,
        );
        const problems = verifyAudit(await store.read("t1"));
        assert.deepEqual(
          problems.map((problem) => [problem.seq, problem.problem]),
          [[1, "changed"]],
        );
        await sql(url, `UPDATE ${table} SET record = '{"not":"a record"' WHERE run_id = 't1' AND seq = 2`);
        await assert.rejects(
          store.read("t1"),
          (error) => isLeashError(error, "audit_corrupt") && /seq 2/.test((error as Error).message),
        );
      } finally {
        await cleanup();
      }
    });

    test("an append that would take a place already in the trail is refused whole with stale_state", async () => {
      const { store, cleanup } = freshStore(url);
      try {
        const records = chain("a", 2);
        await store.append(records.slice(0, 1));
        const other = chain("b", 1);
        await assert.rejects(store.append([...other, ...records]), refused("stale_state"));
        assert.deepEqual(await store.read(), records.slice(0, 1));
      } finally {
        await cleanup();
      }
    });

    test("ten stores saving the same revision at once: one wins, nine get stale_state, none a raw driver error", async () => {
      const { store, schema, cleanup } = freshStore(url);
      const others = Array.from({ length: 10 }, () => new PostgresStore({ connectionString: url, schema }));
      try {
        const first = chain("hot", 1);
        await store.create(stateOf("hot", { head: headOf(first) }), { records: first });
        const outcomes = await Promise.allSettled(
          others.map((other, index) => {
            const more = chain("hot", 2, first[0], `writer-${index}`);
            return other.save(stateOf("hot", { revision: 2, goal: `writer-${index}`, head: headOf(more) }), {
              expectedRevision: 1,
              records: more,
            });
          }),
        );
        const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
        assert.equal(won.length, 1);
        for (const outcome of outcomes)
          if (outcome.status === "rejected")
            assert.ok(isLeashError(outcome.reason, "stale_state"), String(outcome.reason));
        const stored = await store.load("hot");
        const trail = await store.read("hot");
        assert.equal(trail.length, 3);
        assert.deepEqual(stored?.auditHead, headOf(trail));
        assert.deepEqual(verifyAudit(trail), []);
      } finally {
        await Promise.all(others.map((other) => other.close()));
        await cleanup();
      }
    });

    test("workers leasing at the same moment get disjoint runs, only answered ones, and bad lease options are refused", async () => {
      const { store, schema, cleanup } = freshStore(url);
      const others = Array.from({ length: 5 }, () => new PostgresStore({ connectionString: url, schema }));
      try {
        const agent = workerAgent({ store, effectsFile: "/dev/null" });
        const answered = await approvedRuns(agent, store, 10);
        await agent.run("not answered", { runId: "unanswered" });
        const leased = await Promise.all(
          others.map((other, index) => other.lease({ worker: `w${index}`, limit: 3, ttlMs: 60_000 })),
        );
        const all = leased.flat();
        assert.equal(new Set(all).size, all.length, "no run leased twice");
        assert.ok(all.every((runId) => answered.includes(runId)));
        assert.ok(all.length === 10, `leased ${all.length}`);
        assert.ok(
          leased.every((runIds) => runIds.length <= 3),
          `no worker got more than its limit: ${JSON.stringify(leased)}`,
        );
        assert.deepEqual(await store.lease({ worker: "late", ttlMs: 60_000 }), [], "every answered run is held");
        // Which worker got which runs depends on the interleaving: take two workers that hold some
        // (ten runs, at most three each, so at least four of the five do).
        const holders = leased.flatMap((runIds, index) => (runIds.length > 0 ? [index] : []));
        assert.ok(holders.length >= 4, `holders: ${JSON.stringify(leased)}`);
        const [mine, theirs] = [holders[0]!, holders[1]!];
        const held = leased[mine]!;
        const worker = `w${mine}`;
        assert.deepEqual(
          (await others[mine]!.renewLease({ worker, runIds: [...held, leased[theirs]![0]!], ttlMs: 60_000 })).sort(),
          [...held].sort(),
          "a worker renews only the leases it holds",
        );
        await others[mine]!.releaseLease({ worker, runIds: [...held, leased[theirs]![0]!] });
        assert.deepEqual(
          (await store.lease({ worker: "late", limit: 10, ttlMs: 60_000 })).sort(),
          [...held].sort(),
          "a worker releases only the leases it holds",
        );
        const bad: Parameters<PostgresStore["lease"]>[0][] = [
          { worker: "", ttlMs: 1 },
          { worker: "w", ttlMs: 0 },
          { worker: "w", ttlMs: 1, limit: 0 },
          { worker: "w", ttlMs: 1, exclude: [1 as unknown as string] },
        ];
        for (const options of bad)
          await assert.rejects(store.lease(options), refused("invalid_option"), JSON.stringify(options));
      } finally {
        await Promise.all(others.map((other) => other.close()));
        await cleanup();
      }
    });

    test("a transaction PostgreSQL aborts (serialization failure) is run again; other driver errors become store_failed", async () => {
      const schema = freshSchemaName();
      const real = new pg.Pool({ connectionString: url, max: 2 });
      let failNext: string | undefined;
      // A pool that fails once, on the next statement that saves (the call of the save function, or
      // an UPDATE in a transaction), with the SQLSTATE given.
      const injected = (text: string): Error | undefined => {
        if (failNext === undefined || !/\bUPDATE\b|leash_save_run/.test(text)) return undefined;
        const error = Object.assign(new Error(`injected ${failNext}`), { code: failNext });
        failNext = undefined;
        return error;
      };
      const flaky: PostgresPool = {
        query: async (text, values) => {
          const error = injected(text);
          if (error !== undefined) throw error;
          return real.query(text, values);
        },
        end: () => real.end(),
        connect: async () => {
          const client = await real.connect();
          return {
            release: (destroy) => client.release(destroy),
            query: async (text, values) => {
              const error = injected(text);
              if (error !== undefined) throw error;
              return client.query(text, values);
            },
          };
        },
      };
      const store = new PostgresStore({ pool: flaky, schema });
      try {
        const first: AuditRecord[] = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        failNext = "40001";
        const more = chain("r1", 1, first[0]);
        await store.save(stateOf("r1", { revision: 2, head: headOf(more) }), { expectedRevision: 1, records: more });
        assert.equal((await store.load("r1"))?.revision, 2);
        assert.equal((await store.read("r1")).length, 2);
        failNext = "53100";
        const last = chain("r1", 1, more[0]);
        await assert.rejects(
          store.save(stateOf("r1", { revision: 3, head: headOf(last) }), { expectedRevision: 2, records: last }),
          (error) => {
            assert.ok(isLeashError(error, "store_failed"));
            assert.equal(error.details.sqlState, "53100");
            return true;
          },
        );
        assert.equal((await store.load("r1"))?.revision, 2, "the failed save changed nothing");
        assert.equal((await store.read("r1")).length, 2);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        await real.end();
      }
    });
  });
});
