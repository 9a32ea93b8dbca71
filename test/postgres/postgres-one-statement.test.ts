// A create, a save and an answer on PostgresStore are one statement each (one call of a function the
// store installs with its tables), holding a connection only for that round trip, and every guarantee
// of a save still holds in it: the compare-and-set on the revision, the chain-head check against a
// second writer, the summary and change number written with the state, and nothing written on a
// refusal. Records the function will not vouch for are checked in full, with the exact refusal.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { Agent, Approval, Decision, Policy, isLeashError, makeRecord } from "../../src/index.js";
import type { AuditRecord } from "../../src/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import type { PostgresPool } from "../../src/stores/postgres/index.js";
import { chain, headOf, stateOf } from "../contract/contract-fixtures.js";
import { writeTextTool } from "../helpers/text-tool.js";
import { until } from "../worker/worker-helpers.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "./database.js";

/** A pool that counts what the store asks of it: statements on the pool, and connections checked out. */
function countingPool(url: string): {
  pool: PostgresPool;
  counts: { statements: string[]; connections: number };
  end: () => Promise<void>;
} {
  const real = new pg.Pool({ connectionString: url, max: 4 });
  const counts = { statements: [] as string[], connections: 0 };
  const pool: PostgresPool = {
    query: (text, values) => {
      counts.statements.push(text);
      return real.query(text, values);
    },
    connect: async () => {
      counts.connections++;
      const client = await real.connect();
      return {
        release: (destroy) => client.release(destroy),
        query: (text, values) => {
          counts.statements.push(text);
          return client.query(text, values);
        },
      };
    },
    end: () => Promise.resolve(),
  };
  return { pool, counts, end: () => real.end() };
}

withPostgres("PostgresStore saves in one statement", (url) => {
  describe("PostgresStore saves in one statement", () => {
    const setUp = async () => {
      const schema = freshSchemaName();
      const counting = countingPool(url);
      const store = new PostgresStore({ pool: counting.pool, schema });
      await store.load("warm-up");
      const reset = (): void => {
        counting.counts.statements.length = 0;
        counting.counts.connections = 0;
      };
      reset();
      const cleanup = async (): Promise<void> => {
        await store.close();
        await dropSchema(url, schema);
        await counting.end();
      };
      return { schema, store, counts: counting.counts, reset, cleanup };
    };

    test("a create and each save with records is one statement on the pool, with no transaction of its own", async () => {
      const { store, counts, reset, cleanup } = await setUp();
      try {
        const first = chain("r1", 2);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        assert.equal(counts.statements.length, 1, counts.statements.join("\n"));
        assert.equal(counts.connections, 0);
        let records = first;
        for (let revision = 2; revision <= 6; revision++) {
          reset();
          const more = chain("r1", 3, records.at(-1));
          await store.save(stateOf("r1", { revision, head: headOf(more) }), {
            expectedRevision: revision - 1,
            records: more,
          });
          records = [...records, ...more];
          assert.equal(counts.statements.length, 1, counts.statements.join("\n"));
          assert.equal(counts.connections, 0);
        }
        assert.equal((await store.read("r1")).length, records.length);
        assert.equal((await store.load("r1"))?.revision, 6);
      } finally {
        await cleanup();
      }
    });

    test("a stale revision, a missing run and a second writer at the same seq are refused in that one statement, writing nothing", async () => {
      const { store, counts, reset, cleanup } = await setUp();
      try {
        const first = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        const more = chain("r1", 1, first[0]);
        reset();
        await assert.rejects(
          store.save(stateOf("r1", { revision: 5, head: headOf(more) }), { expectedRevision: 4, records: more }),
          (error) => isLeashError(error, "stale_state") && error.details.stored === 1 && error.details.expected === 4,
        );
        assert.equal(counts.statements.length, 1);
        await assert.rejects(store.save(stateOf("nobody", { revision: 2 }), { expectedRevision: 1 }), (error) =>
          isLeashError(error, "run_not_found"),
        );
        // Another writer extends the chain at seq 1 first; this save's record at seq 1 is refused.
        await store.append(chain("r1", 1, first[0], "elsewhere"));
        reset();
        await assert.rejects(
          store.save(stateOf("r1", { revision: 2, head: headOf(more) }), { expectedRevision: 1, records: more }),
          (error) => isLeashError(error, "stale_state"),
        );
        const stored = await store.load("r1");
        assert.equal(stored?.revision, 1, "the refused save moved nothing");
        assert.deepEqual(
          (await store.read("r1")).map((record) => record.event),
          ["run_started", "elsewhere"],
        );
        const summaries = await store.summaries();
        assert.equal(summaries.runs[0]?.revision, 1, "nor its summary");
      } finally {
        await cleanup();
      }
    });

    test("records that do not continue the chain are checked in full: audit_corrupt for a gap, nothing written", async () => {
      const { store, cleanup } = await setUp();
      try {
        const first = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        const skipped = makeRecord("r1", { seq: 1, digest: first[0]!.digest }, "note", {}, first[0]!.at);
        await assert.rejects(
          store.save(stateOf("r1", { revision: 2 }), { expectedRevision: 1, records: [skipped] }),
          (error) => isLeashError(error, "audit_corrupt"),
        );
        assert.equal((await store.load("r1"))?.revision, 1);
        assert.equal((await store.read("r1")).length, 1);
        const broken: AuditRecord = { ...chain("r1", 1, first[0])[0]!, prev: "0".repeat(64) };
        await assert.rejects(
          store.save(stateOf("r1", { revision: 2 }), { expectedRevision: 1, records: [broken] }),
          (error) => isLeashError(error, "audit_corrupt") || isLeashError(error, "stale_state"),
        );
        assert.equal((await store.read("r1")).length, 1);
      } finally {
        await cleanup();
      }
    });

    test("a trail written before the digest column (a head without a digest) still takes a save, checked in full", async () => {
      const { schema, store, cleanup } = await setUp();
      try {
        const first = chain("r1", 2);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        await sql(url, `UPDATE ${pg.escapeIdentifier(schema)}.leash_audit SET digest = NULL WHERE run_id = 'r1'`);
        const more = chain("r1", 2, first[1]);
        await store.save(stateOf("r1", { revision: 2, head: headOf(more) }), { expectedRevision: 1, records: more });
        assert.equal((await store.read("r1")).length, 4);
        assert.equal((await store.summaries()).runs[0]?.revision, 2);
      } finally {
        await cleanup();
      }
    });

    test("an answer is one statement that writes the answer, its audited record and the run's new summary together", async () => {
      const { store, counts, reset, cleanup } = await setUp();
      try {
        const write = writeTextTool({ name: "write_note", onWrite: () => Promise.resolve("written") });
        const agent = new Agent({
          tools: [write],
          planner: (state) =>
            state.steps.length === 0 ? Decision.act("write_note", { text: "hello" }) : Decision.finish("done"),
          policy: new Policy({ allowEffects: ["read", "write"] }),
          store,
          audit: store,
        });
        const paused = await agent.run("write a note", { runId: "asks" });
        assert.equal(paused.status, "awaiting_approval");
        const before = await store.changeSequence();
        reset();
        await store.answer("asks", Approval.grant(paused.pending!.digest, "allen"));
        const saves = counts.statements.filter((text) => text.includes("leash_save_run"));
        assert.equal(saves.length, 1);
        assert.equal(counts.connections, 0);
        const trail = await store.read("asks");
        assert.equal(trail.at(-1)?.event, "approval_answered");
        const [summary] = (await store.summaries({ changedSince: before })).runs;
        assert.equal(summary?.runId, "asks");
        assert.equal(summary.answers, 1);
        const resumed = await agent.resume("asks");
        assert.equal(resumed.status, "completed");
      } finally {
        await cleanup();
      }
    });

    test("saves of many runs made while every connection slot is busy go in one statement, and a refused one alone is refused", async () => {
      const schema = freshSchemaName();
      const real = new pg.Pool({ connectionString: url, max: 10 });
      const batches: number[] = [];
      let gate = (): void => undefined;
      const opened = new Promise<void>((resolve) => (gate = resolve));
      // The first ten batches (one per slot of a pool of yours) wait for the gate before they run.
      const pool: PostgresPool = {
        query: async (text, values) => {
          if (text.includes("leash_save_runs")) {
            batches.push((JSON.parse(String(values?.[0])) as unknown[]).length);
            if (batches.length <= 10) await opened;
          }
          return real.query(text, values);
        },
        connect: () => real.connect(),
        end: () => Promise.resolve(),
      };
      const store = new PostgresStore({ pool, schema });
      try {
        const runIds = Array.from({ length: 22 }, (_, index) => `g${index}`);
        const firsts = new Map<string, AuditRecord[]>();
        for (const runId of runIds) {
          const first = chain(runId, 1);
          firsts.set(runId, first);
          await store.create(stateOf(runId, { head: headOf(first) }), { records: first });
        }
        const saveOf = (runId: string, index: number): Promise<void> => {
          const more = chain(runId, 2, firsts.get(runId)![0]);
          // Every third save expects a revision the run is not at.
          const expectedRevision = index % 3 === 0 ? 7 : 1;
          return store.save(stateOf(runId, { revision: expectedRevision + 1, head: headOf(more) }), {
            expectedRevision,
            records: more,
          });
        };
        const first = runIds.slice(0, 10).map((runId, index) => saveOf(runId, index));
        await until(() => batches.length === 10, "every slot holds a save");
        const rest = runIds.slice(10).map((runId, index) => saveOf(runId, index + 10));
        // Each save joins the queue within the microtasks of its call.
        await new Promise((resolve) => setImmediate(resolve));
        gate();
        const outcomes = await Promise.allSettled([...first, ...rest]);
        assert.deepEqual(batches, [...runIds.slice(0, 10).map(() => 1), 12], "the twelve that waited went together");
        outcomes.forEach((outcome, index) => {
          if (index % 3 === 0)
            assert.ok(outcome.status === "rejected" && isLeashError(outcome.reason, "stale_state"), runIds[index]);
          else assert.equal(outcome.status, "fulfilled", runIds[index]);
        });
        for (const [index, runId] of runIds.entries()) {
          const refusedSave = index % 3 === 0;
          assert.equal((await store.read(runId)).length, refusedSave ? 1 : 3, runId);
          assert.equal((await store.load(runId))?.revision, refusedSave ? 1 : 2, runId);
        }
      } finally {
        await store.close();
        await dropSchema(url, schema);
        await real.end();
      }
    });
  });
});
