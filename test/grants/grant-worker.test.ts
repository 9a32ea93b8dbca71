// A worker and standing grants: a run paused before a grant existed is resumed by a worker once the
// store's active grants change, and a worker whose store's grants did not change leaves such runs be.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryStore } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { Worker } from "../../src/worker/index.js";
import { readWorkerEffects, workerAgent } from "../fixtures/postgres/worker-agent.js";
import { effectsFolder, recordingLogger } from "../worker/worker-helpers.js";

type Store = RunStore & AuditSink & Required<Pick<RunStore, "grant" | "revokeGrant">>;

async function pausedRunsTakeALaterGrant(store: Store, effects: string): Promise<void> {
  const agent = workerAgent({ store, effectsFile: effects });
  for (const runId of ["w1", "w2", "w3"])
    assert.equal((await agent.run("note", { runId })).status, "awaiting_approval");
  const worker = new Worker({ agent, store, logger: recordingLogger(), pollMs: 10 });
  assert.equal(await worker.runOnce(), 0, "no answer and no grant: nothing to resume");
  await store.grant({ tool: "write_note", maxUses: 2, by: "noor" });
  assert.equal(await worker.runOnce(), 2, "the grant's two uses approve two paused runs");
  const statuses = await Promise.all(["w1", "w2", "w3"].map(async (runId) => (await store.load(runId))?.status));
  assert.deepEqual(statuses, ["completed", "completed", "awaiting_approval"]);
  assert.equal(readWorkerEffects(effects).length, 2);
  const before = await store.read("w3");
  assert.equal(await worker.runOnce(), 0, "the grant is used up: the last run stays paused");
  assert.deepEqual(await store.read("w3"), before, "and nothing was written for it");
  const again = await store.grant({ tool: "write_note", maxUses: 1, by: "ada" });
  await store.revokeGrant(again.id, { by: "ada" });
  assert.equal(await worker.runOnce(), 0, "a revoked grant approves nothing");
  await store.grant({ tool: "write_note", maxUses: 1, by: "ada" });
  assert.equal(await worker.runOnce(), 1);
  assert.equal((await store.load("w3"))?.status, "completed");
}

describe("Worker and standing grants", () => {
  test("on a MemoryStore, paused runs take a grant given later, one use each", async () => {
    const { effects, remove } = effectsFolder();
    try {
      await pausedRunsTakeALaterGrant(new MemoryStore(), effects);
    } finally {
      remove();
    }
  });

  test("on a SQLite file, paused runs take a grant given later, one use each", async () => {
    const { effects, remove } = effectsFolder();
    const store = new SqliteStore(join(effects, "..", "runs.db"));
    try {
      await pausedRunsTakeALaterGrant(store, effects);
    } finally {
      await store.close();
      remove();
    }
  });
});
