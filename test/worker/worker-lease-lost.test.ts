// A worker that loses its lease on PostgreSQL stops the run it was driving: the run's signal is
// aborted (a tool honouring `ctx.signal` stops), and nothing more is recorded or saved by it; the
// run is the new holder's, intact. The lease is lost in a controlled way (another holder written
// into the run's row, or a renewal that fails), and every wait is on a condition.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { verifyAudit } from "../../src/index.js";
import type { AuditRecord } from "../../src/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { Worker } from "../../src/worker/index.js";
import { readWorkerEffects, workerAgent } from "../fixtures/postgres/worker-agent.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { killHard, startFixture } from "../stores/fixture-process.js";
import { approvedRuns, effectsFolder, gate, recordingLogger, until } from "./worker-helpers.js";

/** Short enough that the first worker renews several times while the test waits on it. */
const LEASE_MS = 300;

withPostgres("Worker that loses its lease", (url) => {
  describe("Worker that loses its lease", () => {
    let schema = "";
    const open = () => new PostgresStore({ connectionString: url, schema });

    /** What the first worker left: the run's trail and its stored revision. */
    const snapshot = async (store: PostgresStore, runId: string) => ({
      trail: (await store.read(runId)).map((record: AuditRecord) => record.digest),
      revision: (await store.load(runId))?.revision,
    });

    test("a worker whose lease another holder takes aborts the run's signal, writes nothing more, and the new holder's run is intact", async () => {
      schema = freshSchemaName();
      const { effects, remove } = effectsFolder();
      const stores = [open(), open(), open()];
      const [firstStore, secondStore, observer] = stores as [PostgresStore, PostgresStore, PostgresStore];
      try {
        const [runId] = await approvedRuns(workerAgent({ store: firstStore, effectsFile: effects }), firstStore, 1);
        const started = gate();
        const aborted = gate();
        const logger = recordingLogger();
        const first = new Worker({
          agent: workerAgent({
            store: firstStore,
            effectsFile: effects,
            onStart: started.open,
            untilAborted: aborted.open,
          }),
          store: firstStore,
          leaseMs: LEASE_MS,
          workerId: "first",
          logger,
        });
        const firstPass = first.runOnce();
        await started.opened;
        const before = await snapshot(observer, runId!);
        // Another holder takes the run: its lease, already run out, so that the second worker may
        // lease it to recover the run as it would after the first one stalled past its lease.
        await sql(
          url,
          `UPDATE ${pg.escapeIdentifier(schema)}.leash_runs SET leased_by = 'second', leased_until = clock_timestamp() - interval '1 second' WHERE run_id = $1`,
          [runId],
        );
        const second = new Worker({
          agent: workerAgent({ store: secondStore, effectsFile: effects }),
          store: secondStore,
          workerId: "second",
          logger: recordingLogger(),
        });
        assert.equal(await second.runOnce(), 1);
        await aborted.opened;
        assert.equal(await firstPass, 0, "the first worker resumed nothing to the end");

        const state = await observer.load(runId!);
        assert.equal(state?.status, "completed");
        assert.equal(
          state.steps[0]?.outcome,
          "interrupted",
          "the second holder cannot know whether the write took effect",
        );
        const trail = await observer.read(runId);
        assert.deepEqual(verifyAudit(trail), []);
        assert.deepEqual(
          trail.slice(0, before.trail.length).map((record) => record.digest),
          before.trail,
          "the first worker's records stand as they were",
        );
        const after = trail.slice(before.trail.length);
        assert.equal(after[0]?.event, "run_resumed", "the next record is the second holder's claim");
        assert.equal(after.filter((record) => record.event === "tool_started").length, 0);
        assert.equal(after.at(-1)?.event, "run_ended");
        assert.deepEqual(state.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
        assert.equal(readWorkerEffects(effects).length, 1, "the write started once");
        assert.ok(
          logger.lines.some((line) => line.level === "warn" && line.message.includes("Lost the lease")),
          "the first worker says it lost the lease",
        );
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await dropSchema(url, schema);
        remove();
      }
    });

    test("a worker process paused past its lease stops its run when it wakes, after another worker recovered it, and writes nothing", async () => {
      schema = freshSchemaName();
      const { effects, remove } = effectsFolder();
      const store = open();
      try {
        const [runId] = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 1);
        const child = startFixture("postgres/worker-child.ts", [url, schema, effects, "signal", "1000"]);
        try {
          await child.waitFor((line) => line === `started ${runId}`);
          // The first worker's machine stalls past its lease: the lease runs out on the database's clock.
          child.child.kill("SIGSTOP");
          const expired = async () =>
            (
              await sql(
                url,
                `SELECT leased_until < clock_timestamp() AS expired FROM ${pg.escapeIdentifier(schema)}.leash_runs WHERE run_id = $1`,
                [runId],
              )
            ).rows[0]?.expired === true;
          await until(expired, "the stalled worker's lease has run out");
          const second = new Worker({
            agent: workerAgent({ store, effectsFile: effects }),
            store,
            logger: recordingLogger(),
          });
          assert.equal(await second.runOnce(), 1);
          const recovered = await snapshot(store, runId!);
          assert.equal((await store.load(runId!))?.status, "completed");
          child.child.kill("SIGCONT");
          await child.waitFor((line) => line === `aborted ${runId}`);
          child.child.kill("SIGTERM");
          await child.waitFor((line) => line === "stopped");
          assert.match(child.stderr(), /Lost the lease/);
          assert.deepEqual(await snapshot(store, runId!), recovered, "the first worker wrote nothing after it woke");
          const trail = await store.read(runId);
          assert.deepEqual(verifyAudit(trail), []);
          assert.equal(trail.filter((record) => record.event === "tool_started").length, 1);
          assert.equal(readWorkerEffects(effects).length, 1);
        } finally {
          child.child.kill("SIGCONT");
          await killHard(child);
        }
      } finally {
        await store.close();
        await dropSchema(url, schema);
        remove();
      }
    });

    test("a worker whose lease renewal fails stops the run, writes nothing more, and leaves the run as last saved", async () => {
      schema = freshSchemaName();
      const { effects, remove } = effectsFolder();
      const store = open();
      const observer = open();
      try {
        const [runId] = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 1);
        const started = gate();
        const aborted = gate();
        let failing = false;
        // The same store, except that once the call has started every renewal fails (the database
        // away for this worker).
        const flaky = new Proxy(store, {
          get(target, key) {
            if (key === "renewLease" && failing) return () => Promise.reject(new Error("connection reset"));
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        });
        const logger = recordingLogger();
        const worker = new Worker({
          agent: workerAgent({
            store,
            effectsFile: effects,
            onStart: () => {
              failing = true;
              started.open();
            },
            untilAborted: aborted.open,
          }),
          store: flaky,
          leaseMs: LEASE_MS,
          workerId: "flaky",
          logger,
        });
        const pass = worker.runOnce();
        await started.opened;
        const before = await snapshot(observer, runId!);
        await aborted.opened;
        assert.equal(await pass, 0);
        assert.deepEqual(await snapshot(observer, runId!), before, "nothing was recorded or saved after the loss");
        assert.equal((await observer.load(runId!))?.status, "running", "the run is left for crash recovery");
        assert.ok(logger.lines.some((line) => line.level === "warn" && line.message.includes("could not be renewed")));
      } finally {
        await store.close();
        await observer.close();
        await dropSchema(url, schema);
        remove();
      }
    });
  });
});
