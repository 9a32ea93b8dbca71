// The inbox's watcher: on a store with a change sequence, a look at a store where nothing changed is
// one changeSequence() call and reads no run; what changed is named from summaries({ changedSince }).
// On a store an app wrote itself (list() only), it still names what changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Approval, MemoryStore } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { StoreWatcher } from "../../src/inbox/store-watcher.js";
import { stateOf, writerAgent } from "../contract/contract-fixtures.js";

/** A MemoryStore whose calls are counted, and whose `changeSequence` calls can be waited for. */
function countedStore(options: { sequence: boolean }) {
  const inner = new MemoryStore();
  const calls = { changeSequence: 0, summaries: 0, list: 0, load: 0 };
  const waiters: { count: number; resolve: () => void }[] = [];
  // A look is a changeSequence() call, or a listing by a watcher that reads every run instead.
  const lookCount = () => calls.changeSequence + calls.list;
  const wake = () => {
    for (const waiter of waiters.filter((item) => lookCount() >= item.count)) waiter.resolve();
  };
  const store: RunStore & AuditSink = {
    create: (state, more) => inner.create(state, more),
    load: (runId) => {
      calls.load += 1;
      return inner.load(runId);
    },
    save: (state, more) => inner.save(state, more),
    answer: (runId, approval, more) => inner.answer(runId, approval, more),
    list: (more) => {
      calls.list += 1;
      wake();
      return inner.list(more);
    },
    append: (records) => inner.append(records),
    read: (runId) => inner.read(runId),
    close: () => inner.close(),
    ...(options.sequence
      ? {
          summaries: (more) => {
            calls.summaries += 1;
            return inner.summaries(more);
          },
          changeSequence: async () => {
            calls.changeSequence += 1;
            const value = await inner.changeSequence();
            wake();
            return value;
          },
        }
      : {}),
  };
  const looks = (count: number) =>
    new Promise<void>((resolve) => {
      if (lookCount() >= count) resolve();
      else waiters.push({ count, resolve });
    });
  return { store, calls, looks };
}

/** The next set of changed ids the watcher reports. */
function nextChange(watcher: StoreWatcher): {
  changed: Promise<ReadonlySet<string>>;
  stop: () => void;
  ready: Promise<void>;
} {
  let stop = () => undefined as void;
  let ready: Promise<void> = Promise.resolve();
  const changed = new Promise<ReadonlySet<string>>((resolve) => {
    const subscription = watcher.subscribe((runIds) => resolve(runIds));
    stop = subscription.stop;
    ready = subscription.ready;
  });
  return { changed, stop, ready };
}

test("a look at a store where nothing changed is one changeSequence() call, and reads no run", async () => {
  const { store, calls, looks } = countedStore({ sequence: true });
  for (let index = 0; index < 20; index += 1) await store.create(stateOf(`run-${index}`));
  const watcher = new StoreWatcher(store, { intervalMs: 1, maxIntervalMs: 1 });
  const { stop, ready } = nextChange(watcher);
  try {
    await ready;
    await looks(6);
    assert.deepEqual(
      { summaries: calls.summaries, list: calls.list, load: calls.load },
      { summaries: 0, list: 0, load: 0 },
    );
  } finally {
    stop();
  }
});

test("the watcher names exactly the runs created, saved or answered since its last look", async () => {
  const { store, calls } = countedStore({ sequence: true });
  const agent = writerAgent(store, []);
  const paused = await agent.run("save the report", { runId: "paused" });
  for (let index = 0; index < 5; index += 1) await store.create(stateOf(`run-${index}`));
  const watcher = new StoreWatcher(store, { intervalMs: 1, maxIntervalMs: 1 });

  let next = nextChange(watcher);
  await next.ready;
  await store.answer("paused", Approval.grant(paused.pending!.digest, "allen"));
  assert.deepEqual([...(await next.changed)], ["paused"]);
  next.stop();

  next = nextChange(watcher);
  await next.ready;
  const state = (await store.load("run-3"))!;
  state.revision += 1;
  await store.save(state, { expectedRevision: state.revision - 1 });
  await store.create(stateOf("run-new"));
  const changed = await next.changed;
  // Both may come in one look or the first alone; either way nothing else is named.
  assert.ok(
    [...changed].every((runId) => ["run-3", "run-new"].includes(runId)),
    [...changed].join(),
  );
  next.stop();
  assert.equal(calls.list, 0, "no run's state was read to find what changed");
});

test("on a store without a change sequence (an app's own, list() only) the watcher still names what changed", async () => {
  const { store } = countedStore({ sequence: false });
  for (let index = 0; index < 3; index += 1) await store.create(stateOf(`run-${index}`));
  const watcher = new StoreWatcher(store, { intervalMs: 1, maxIntervalMs: 1 });
  const next = nextChange(watcher);
  try {
    await next.ready;
    const state = (await store.load("run-1"))!;
    state.revision += 1;
    await store.save(state, { expectedRevision: state.revision - 1 });
    assert.deepEqual([...(await next.changed)], ["run-1"]);
  } finally {
    next.stop();
  }
});
