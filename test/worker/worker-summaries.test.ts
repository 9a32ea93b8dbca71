// A worker's pass on a store without leases reads summaries a page at a time and loads only the runs
// it attempts (those with an answer recorded), however many runs wait without one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Approval, MemoryStore } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { Worker } from "../../src/worker/index.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { workerAgent } from "../fixtures/postgres/worker-agent.js";
import { assertEachRanOnce, effectsFolder, recordingLogger } from "./worker-helpers.js";

/** The store, with the ids every `load` asked for and how many times `list` was called. */
function watchedStore(): { store: RunStore & AuditSink; loaded: string[]; lists: () => number } {
  const inner = new MemoryStore();
  const loaded: string[] = [];
  let lists = 0;
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "load")
        return (runId: string) => {
          loaded.push(runId);
          return target.load(runId);
        };
      if (key === "list")
        return (options: Parameters<MemoryStore["list"]>[0]) => {
          lists += 1;
          return target.list(options);
        };
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, loaded, lists: () => lists };
}

test("a pass over hundreds of waiting runs loads only the answered ones it resumes, across pages of summaries", async () => {
  const { effects, remove } = effectsFolder();
  try {
    const { store, loaded, lists } = watchedStore();
    const agent = workerAgent({ store, effectsFile: effects });
    const answered: string[] = [];
    for (let index = 0; index < 330; index += 1) {
      if (index % 110 === 5) {
        const paused = await agent.run(`note ${index}`, { runId: `answered-${index}` });
        await store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen"));
        answered.push(paused.runId);
      } else await store.create(stateOf(`waiting-${index}`, { status: "awaiting_approval" }));
    }
    loaded.length = 0;
    const logger = recordingLogger();
    const worker = new Worker({ agent, store, logger, pollMs: 10 });
    assert.equal(await worker.runOnce(), answered.length);
    await assertEachRanOnce(store, answered, effects);
    const before = loaded.length;
    assert.ok(before > 0);
    assert.deepEqual(
      [...new Set(loaded.filter((runId) => !answered.includes(runId)))],
      [],
      "no run without an answer was loaded",
    );
    assert.equal(lists(), 0, "the pass read summaries, not states");
    assert.equal(await worker.runOnce(), 0, "nothing is left to resume");
    assert.equal(loaded.length, before, "a pass with nothing to do loads nothing");
    assert.deepEqual(
      logger.lines.filter((line) => line.level === "error"),
      [],
    );
  } finally {
    remove();
  }
});
