// A worker's pass over a backlog on PostgreSQL moves on by a cursor (the last run it tried), not by a
// growing list of every run tried: each lease query carries the same few parameters however long the
// backlog, every run is tried once per pass, and the pass ends at the end of the backlog, also when
// every run it tries is lost to another process and so stays leasable.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import type { PostgresPool } from "../../src/stores/postgres/index.js";
import type { RunState } from "../../src/index.js";
import { Worker } from "../../src/worker/index.js";
import { workerAgent } from "../fixtures/postgres/worker-agent.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { approvedRuns, effectsFolder, recordingLogger } from "./worker-helpers.js";

const BACKLOG = 30;

/** A pool that keeps the parameters of every lease query it runs. */
function recordingPool(url: string): { pool: PostgresPool; leases: unknown[][]; end: () => Promise<void> } {
  const real = new pg.Pool({ connectionString: url, max: 4 });
  const leases: unknown[][] = [];
  const pool: PostgresPool = {
    query: (text, values) => {
      if (text.includes("SET leased_by = $1")) leases.push(values ?? []);
      return real.query(text, values);
    },
    connect: () => real.connect(),
    end: () => Promise.resolve(),
  };
  return { pool, leases, end: () => real.end() };
}

/** The size of the largest parameter of a query: an array's length, else 1. */
function largestParameter(values: unknown[]): number {
  return Math.max(...values.map((value) => (Array.isArray(value) ? value.length : 1)));
}

/** A store whose loads hand the worker a copy one revision behind, so every resume loses its claim. */
class StaleCopies extends PostgresStore {
  /** Set once the runs are set up: answering them loads them too. */
  stale = false;
  override async load(runId: string): Promise<RunState | null> {
    const state = await super.load(runId);
    if (this.stale && state !== null) state.revision -= 1;
    return state;
  }
}

withPostgres("a worker's pass by lease cursor", (url) => {
  describe("a worker's pass over a backlog on PostgreSQL", () => {
    test("a backlog is passed over with bounded lease parameters, each run resumed once, in the order created", async () => {
      const schema = freshSchemaName();
      const folder = effectsFolder();
      const recorded = recordingPool(url);
      const store = new PostgresStore({ pool: recorded.pool, schema });
      try {
        const agent = workerAgent({ store, effectsFile: folder.effects });
        const runIds = await approvedRuns(agent, store, BACKLOG, "backlog");
        const worker = new Worker({ agent, store, logger: recordingLogger(), leaseMs: 60_000 });
        recorded.leases.length = 0;
        assert.equal(await worker.runOnce(), BACKLOG);
        // One lease per run, and one that finds the end.
        assert.equal(recorded.leases.length, BACKLOG + 1);
        for (const values of recorded.leases) assert.ok(largestParameter(values) <= 1, JSON.stringify(values));
        for (const runId of runIds) assert.equal((await store.load(runId))?.status, "completed", runId);
      } finally {
        await store.close();
        await dropSchema(url, schema);
        await recorded.end();
        folder.remove();
      }
    });

    test("runs lost in a pass stay leasable, yet each is tried once and the pass ends at the end of the backlog", async () => {
      const schema = freshSchemaName();
      const folder = effectsFolder();
      const recorded = recordingPool(url);
      const store = new StaleCopies({ pool: recorded.pool, schema });
      try {
        const agent = workerAgent({ store, effectsFile: folder.effects });
        const runIds = await approvedRuns(agent, store, BACKLOG, "lost");
        store.stale = true;
        const logger = recordingLogger();
        const worker = new Worker({ agent, store, logger, leaseMs: 60_000 });
        recorded.leases.length = 0;
        assert.equal(await worker.runOnce(), 0);
        // The worker says once per attempt that another process got to the run first.
        const lost = (runId: string): number =>
          logger.lines.filter((line) => line.details?.runId === runId && line.details.code === "stale_state").length;
        assert.deepEqual(
          runIds.map(lost),
          runIds.map(() => 1),
          "each run was tried once in the pass",
        );
        assert.equal(recorded.leases.length, BACKLOG + 1);
        for (const values of recorded.leases) assert.ok(largestParameter(values) <= 1, JSON.stringify(values));
        // Lost, not failed: the leases were given back, so the next pass tries every run again.
        assert.equal(await worker.runOnce(), 0);
        assert.deepEqual(
          runIds.map(lost),
          runIds.map(() => 2),
          "each run was tried once more in the next pass",
        );
      } finally {
        await store.close();
        await dropSchema(url, schema);
        await recorded.end();
        folder.remove();
      }
    });
  });
});
