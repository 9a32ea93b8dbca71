// Workers on stores without leases (memory, SQLite): the compare-and-set claim inside agent.resume is
// the lease. A worker that loses a run logs it and moves on; nothing runs twice.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Approval, MemoryStore, Policy, isLeashError } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { Worker } from "../../src/worker/index.js";
import { workerAgent } from "../fixtures/postgres/worker-agent.js";
import { approvedRuns, assertEachRanOnce, effectsFolder, recordingLogger, until } from "./worker-helpers.js";

type Store = RunStore & AuditSink;

async function twoWorkersOnOneStore(open: () => Store, effects: string): Promise<void> {
  // Two stores on the same data where the backend allows it (two SQLite connections, as two processes
  // would have); the memory store is shared.
  const [first, second] = [open(), open()] as const;
  const runIds = await approvedRuns(workerAgent({ store: first, effectsFile: effects }), first, 10);
  const loggers = [recordingLogger(), recordingLogger()];
  const workers = [first, second].map(
    (store, index) =>
      new Worker({
        agent: workerAgent({ store, effectsFile: effects, delayMs: 5 }),
        store,
        logger: loggers[index],
        pollMs: 10,
      }),
  );
  const counts = await Promise.all(workers.map((worker) => worker.runOnce()));
  assert.equal(counts[0]! + counts[1]!, runIds.length, `resumed ${counts.join(" + ")}`);
  await assertEachRanOnce(first, runIds, effects);
  for (const logger of loggers)
    assert.deepEqual(
      logger.lines.filter((line) => line.level === "error"),
      [],
    );
  assert.equal(await workers[0]!.runOnce(), 0, "nothing is left to resume");
  await Promise.all([first, second].map((store) => store.close()));
}

describe("Worker on stores without leases", () => {
  test("two workers on one MemoryStore resume each approved run exactly once", async () => {
    const { effects, remove } = effectsFolder();
    const store = new MemoryStore();
    try {
      await twoWorkersOnOneStore(() => store, effects);
    } finally {
      remove();
    }
  });

  test("two workers on one SQLite file resume each approved run exactly once", async () => {
    const { effects, remove } = effectsFolder();
    try {
      await twoWorkersOnOneStore(() => new SqliteStore(join(effects, "..", "runs.db")), effects);
    } finally {
      remove();
    }
  });

  test("a worker that loses the race logs it and moves on: the claim is the lease", async () => {
    const { effects, remove } = effectsFolder();
    const store = new MemoryStore();
    try {
      const [runId] = await approvedRuns(workerAgent({ store, effectsFile: effects }), store, 1);
      const listed = await store.summaries({ status: "awaiting_approval" });
      const seen = await store.load(runId!);
      // Another process resumes the run between the worker's look at the inbox and its resume.
      const racing: Store = Object.assign(Object.create(store) as Store, {
        summaries: () => Promise.resolve(listed),
        load: async () => {
          await workerAgent({ store, effectsFile: effects }).resume(runId!);
          return seen;
        },
      });
      const logger = recordingLogger();
      const worker = new Worker({ agent: workerAgent({ store, effectsFile: effects }), store: racing, logger });
      assert.equal(await worker.runOnce(), 0);
      const lost = logger.lines.find((line) => line.details?.code !== undefined);
      assert.equal(lost?.level, "info");
      assert.ok(lost.details?.code === "run_ended" || lost.details?.code === "stale_state", JSON.stringify(lost));
      await assertEachRanOnce(store, [runId!], effects);
    } finally {
      remove();
    }
  });

  test("a run that cannot be resumed is logged as an error, not retried until it changes, and the worker goes on", async () => {
    const { effects, remove } = effectsFolder();
    const store = new MemoryStore();
    try {
      const agent = workerAgent({ store, effectsFile: effects });
      const [blocked] = await approvedRuns(agent, store, 1);
      const paused = await agent.run("note fine", { runId: "fine" });
      const fine = paused.runId;
      await store.answer(fine, Approval.grant(paused.pending!.digest, "bea"));
      // Only bea may approve in the worker's policy: allen's recorded answer for `blocked` is refused.
      const strict = new Policy({ allowEffects: ["read", "write"], mayApprove: (approver) => approver === "bea" });
      const blockedState = await store.load(blocked!);
      const logger = recordingLogger();
      const worker = new Worker({ agent: workerAgent({ store, effectsFile: effects, policy: strict }), store, logger });
      assert.equal(await worker.runOnce(), 1);
      const errors = logger.lines.filter((line) => line.level === "error");
      assert.equal(errors.length, 1);
      assert.match(errors[0]!.message, new RegExp(blocked!));
      assert.equal(await worker.runOnce(), 0);
      assert.equal(logger.lines.filter((line) => line.level === "error").length, 1, "not tried again while unchanged");
      assert.equal((await store.load(blocked!))?.revision, blockedState?.revision);
      assert.equal((await store.load(fine))?.status, "completed");
    } finally {
      remove();
    }
  });

  test("start runs until stop; stop resolves once idle and a stopped worker takes nothing more", async () => {
    const { effects, remove } = effectsFolder();
    const store = new MemoryStore();
    try {
      const agent = workerAgent({ store, effectsFile: effects });
      const worker = new Worker({ agent, store, pollMs: 5, logger: recordingLogger() });
      const running = worker.start();
      assert.equal(worker.start(), running, "start is idempotent");
      const runIds = await approvedRuns(agent, store, 3);
      await until(
        async () => (await store.list({ status: "completed" })).length === runIds.length,
        "the worker has completed the three runs",
      );
      await worker.stop();
      await running;
      await assertEachRanOnce(store, runIds, effects);
      await approvedRuns(agent, store, 1, "late");
      assert.equal(await worker.runOnce(), 0);
      assert.equal((await store.load("late-0"))?.status, "awaiting_approval");
    } finally {
      remove();
    }
  });

  test("an aborted signal stops the worker; bad options are refused with invalid_option", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const agent = workerAgent({ store, effectsFile: "/dev/null" });
    const worker = new Worker({ agent, store, pollMs: 5, signal: controller.signal });
    const running = worker.start();
    controller.abort();
    await running;
    const bad: unknown[] = [
      { agent, store, pollMs: 0 },
      { agent: {}, store },
      { agent, store: {} },
      { agent, store, leaseMs: 1.5 },
      { agent, store, logger: {} },
    ];
    for (const options of bad)
      assert.throws(
        () => new Worker(options as never),
        (error) => isLeashError(error, "invalid_option"),
      );
  });
});
