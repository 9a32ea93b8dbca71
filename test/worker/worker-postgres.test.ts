// Workers on PostgreSQL: runs are leased (FOR UPDATE SKIP LOCKED, a lease that runs out), so each
// approved run is resumed by exactly one worker, a stopped worker finishes what it holds, and a
// crashed worker's run is recovered once its lease has run out. No test here depends on how fast
// anything runs: a run is held "in hand" by a gate the test opens, leases that must hold are long
// (a minute), a lease that must run out is shortened to a millisecond by its holder's name (as if
// the time had passed), and every wait is on a condition, with a generous deadline.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { Worker } from "../../src/worker/index.js";
import { readWorkerEffects, workerAgent } from "../fixtures/postgres/worker-agent.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { killHard, startFixture } from "../stores/fixture-process.js";
import { approvedRuns, assertEachRanOnce, effectsFolder, gate, recordingLogger, until } from "./worker-helpers.js";

/** A lease that holds for the whole test, however loaded the machine. */
const LONG_LEASE_MS = 60_000;

withPostgres("Worker on PostgreSQL", (url) => {
  describe("Worker on PostgreSQL", () => {
    let schema = "";
    const open = () => new PostgresStore({ connectionString: url, schema });
    const setUp = () => {
      schema = freshSchemaName();
      return effectsFolder();
    };
    const heldLeases = async () =>
      Number(
        (
          await sql(
            url,
            `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.leash_runs WHERE leased_by IS NOT NULL`,
          )
        ).rows[0]?.n,
      );
    /** Who holds the lease on a run, and whether it has run out (on the database's clock). */
    const leaseOf = async (runId: string) => {
      const row = (
        await sql(
          url,
          `SELECT leased_by, leased_until < clock_timestamp() AS expired FROM ${pg.escapeIdentifier(schema)}.leash_runs WHERE run_id = $1`,
          [runId],
        )
      ).rows[0] as { leased_by: string | null; expired: boolean | null } | undefined;
      return { holder: row?.leased_by ?? null, expired: row?.expired === true };
    };

    test("two workers on one database and twelve approved runs: each run is resumed exactly once and all complete", async () => {
      const { effects, remove } = setUp();
      const stores = [open(), open()];
      try {
        const runIds = await approvedRuns(workerAgent({ store: stores[0]!, effectsFile: effects }), stores[0]!, 12);
        const loggers = [recordingLogger(), recordingLogger()];
        const workers = stores.map(
          (store, index) =>
            new Worker({
              agent: workerAgent({ store, effectsFile: effects, delayMs: 10 }),
              store,
              logger: loggers[index],
            }),
        );
        const counts = await Promise.all(workers.map((worker) => worker.runOnce()));
        assert.equal(counts[0]! + counts[1]!, 12, `resumed ${counts.join(" + ")}`);
        await assertEachRanOnce(stores[0]!, runIds, effects);
        // With leases no worker even tries a run another holds: no lost races, no errors.
        for (const logger of loggers)
          assert.deepEqual(
            logger.lines.filter((line) => line.level !== "info" || line.details?.code !== undefined),
            [],
          );
        assert.equal(await heldLeases(), 0);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await dropSchema(url, schema);
        remove();
      }
    });

    test("two started workers pick up answers recorded while they run, and stop cleanly", async () => {
      const { effects, remove } = setUp();
      const stores = [open(), open(), open()];
      try {
        const workers = stores.slice(1).map(
          (store) =>
            new Worker({
              agent: workerAgent({ store, effectsFile: effects, delayMs: 5 }),
              store,
              pollMs: 20,
              logger: recordingLogger(),
            }),
        );
        const running = workers.map((worker) => worker.start());
        const runIds = await approvedRuns(workerAgent({ store: stores[0]!, effectsFile: effects }), stores[0]!, 6);
        await until(
          async () => (await stores[0]!.list({ status: "completed" })).length === 6,
          "the workers have completed the six runs",
        );
        await Promise.all(workers.map((worker) => worker.stop()));
        await Promise.all(running);
        await assertEachRanOnce(stores[0]!, runIds, effects);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await dropSchema(url, schema);
        remove();
      }
    });

    test("stop lets the run in hand finish, takes no new one, and gives its lease back", async () => {
      const { effects, remove } = setUp();
      const store = open();
      try {
        const runIds = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 3);
        // The write holds the run in hand until the test opens the gate, after it has asked to stop.
        const started = gate();
        const release = gate();
        const worker = new Worker({
          agent: workerAgent({ store, effectsFile: effects, onStart: started.open, gate: () => release.opened }),
          store,
          pollMs: 20,
          logger: recordingLogger(),
        });
        const running = worker.start();
        await started.opened;
        const inHand = readWorkerEffects(effects).map((effect) => effect.runId);
        assert.equal(inHand.length, 1);
        const stopped = worker.stop();
        assert.equal((await store.load(inHand[0]!))?.status, "running", "the run is still in hand");
        release.open();
        await stopped;
        await running;
        assert.equal((await store.load(inHand[0]!))?.status, "completed");
        for (const runId of runIds.filter((id) => id !== inHand[0]))
          assert.equal((await store.load(runId))?.status, "awaiting_approval");
        assert.equal(readWorkerEffects(effects).length, 1);
        assert.equal(await heldLeases(), 0);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        remove();
      }
    });

    test("a lease held by a worker that died keeps the run from others until it runs out", async () => {
      const { effects, remove } = setUp();
      const store = open();
      try {
        const [runId] = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 1);
        assert.deepEqual(await store.lease({ worker: "ghost", ttlMs: LONG_LEASE_MS }), [runId]);
        const worker = new Worker({
          agent: workerAgent({ store, effectsFile: effects }),
          store,
          logger: recordingLogger(),
        });
        assert.equal(await worker.runOnce(), 0, "the ghost's lease holds");
        assert.equal(readWorkerEffects(effects).length, 0);
        // The time passes: the lease now ends a millisecond after this renewal, and nobody renews it.
        assert.deepEqual(await store.renewLease({ worker: "ghost", runIds: [runId!], ttlMs: 1 }), [runId]);
        await until(async () => (await leaseOf(runId!)).expired, "the ghost's lease has run out");
        assert.equal(await worker.runOnce(), 1);
        await assertEachRanOnce(store, [runId!], effects);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        remove();
      }
    });

    test("a worker process killed mid-call: once its lease runs out another worker recovers the run, and the write is not repeated", async () => {
      const { effects, remove } = setUp();
      const store = open();
      try {
        const [runId] = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 1);
        const child = startFixture("postgres/worker-child.ts", [url, schema, effects, "hang", String(LONG_LEASE_MS)]);
        try {
          await child.waitFor((line) => line === `started ${runId}`, { timeoutMs: 60_000 });
        } finally {
          await killHard(child);
        }
        assert.equal((await store.load(runId!))?.status, "running");
        const dead = await leaseOf(runId!);
        assert.ok(dead.holder !== null && !dead.expired, "the dead worker still holds its lease");
        const patient = new Worker({
          agent: workerAgent({ store, effectsFile: effects }),
          store,
          recover: false,
          logger: recordingLogger(),
        });
        const worker = new Worker({
          agent: workerAgent({ store, effectsFile: effects }),
          store,
          logger: recordingLogger(),
        });
        assert.equal(await worker.runOnce(), 0, "the dead worker's lease still holds");
        // The time passes: the dead worker's lease now ends a millisecond after this renewal.
        assert.deepEqual(await store.renewLease({ worker: dead.holder, runIds: [runId!], ttlMs: 1 }), [runId]);
        await until(async () => (await leaseOf(runId!)).expired, "the dead worker's lease has run out");
        assert.equal(await patient.runOnce(), 0, "without recover, running runs are left alone");
        assert.equal(await worker.runOnce(), 1);
        const state = await store.load(runId!);
        assert.equal(state?.status, "completed");
        assert.equal(state.steps[0]?.outcome, "interrupted");
        assert.equal(readWorkerEffects(effects).length, 1, "the write started once in all");
        assert.equal(await heldLeases(), 0);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        remove();
      }
    });

    test("a worker process started with runWorker stops on SIGTERM after finishing the run in hand, and exits 0", async () => {
      const { effects, remove } = setUp();
      const store = open();
      try {
        const runIds = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 3);
        // "sigterm": the write the child starts waits for the SIGTERM, so the run is in hand when it lands.
        const child = startFixture("postgres/worker-child.ts", [
          url,
          schema,
          effects,
          "sigterm",
          String(LONG_LEASE_MS),
        ]);
        const [, inHand] = (await child.waitFor((line) => line.startsWith("started "), { timeoutMs: 60_000 })).split(
          " ",
        );
        assert.equal((await store.load(inHand!))?.status, "running", "the run is in hand");
        child.child.kill("SIGTERM");
        await child.waitFor((line) => line === "stopped", { timeoutMs: 60_000 });
        assert.equal(await child.exited, 0, child.stderr());
        assert.equal((await store.load(inHand!))?.status, "completed");
        for (const runId of runIds.filter((id) => id !== inHand))
          assert.equal((await store.load(runId))?.status, "awaiting_approval");
        assert.equal(readWorkerEffects(effects).length, 1, "one write started in all");
        assert.equal(await heldLeases(), 0);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        remove();
      }
    });
  });
});
