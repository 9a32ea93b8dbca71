// listSummaries(store, options): the store's own summaries when it has them, else the same pages
// computed from list() for a store an app wrote itself, with every order, filter and cursor.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, listSummaries, isLeashError } from "../../src/index.js";
import type { ListOptions, RunStatus, RunStore } from "../../src/index.js";
import { stateOf } from "../contract/contract-fixtures.js";

/** A store as an app writes one: list() only (every run of a prefix, in creation order), no summaries. */
function appStore(inner: MemoryStore): RunStore & { lists: ListOptions[] } {
  const lists: ListOptions[] = [];
  return {
    lists,
    create: (state, options) => inner.create(state, options),
    load: (runId) => inner.load(runId),
    save: (state, options) => inner.save(state, options),
    answer: (runId, approval, options) => inner.answer(runId, approval, options),
    list: (options) => {
      lists.push({ ...options });
      return inner.list({
        ...(options?.status === undefined ? {} : { status: options.status }),
        ...(options?.runIdPrefix === undefined ? {} : { runIdPrefix: options.runIdPrefix }),
      });
    },
    close: () => inner.close(),
  };
}

async function filled(): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (let index = 0; index < 17; index += 1) {
    const state = stateOf(`${index % 2 === 0 ? "x" : "y"}-${(index * 5) % 17}-${index}`, {
      status: (["running", "awaiting_approval", "failed"] as RunStatus[])[index % 3],
    });
    state.updatedAt = `2026-05-0${(index % 4) + 1}T00:00:00.000Z`;
    await store.create(state);
  }
  return store;
}

test("a store without summaries is paged from its list(): the same pages, in every order and filter, as a store with them", async () => {
  const inner = await filled();
  const app = appStore(inner);
  for (const order of ["created_asc", "created_desc", "updated_desc"] as const)
    for (const filter of [{}, { status: "running" as const }, { runIdPrefix: "y-" }])
      for (const limit of [1, 3, 17, 100]) {
        let cursor: string | undefined;
        for (let pages = 0; pages < 30; pages += 1) {
          const options: ListOptions = { ...filter, order, limit, ...(cursor === undefined ? {} : { cursor }) };
          const own = await inner.summaries(options);
          const computed = await listSummaries(app, options);
          assert.deepEqual(
            computed.runs.map((run) => ({ ...run, change: 0 })),
            own.runs.map((run) => ({ ...run, change: 0 })),
            JSON.stringify(options),
          );
          assert.ok(
            computed.runs.every((run) => run.change === 0),
            "no change sequence: every change is 0",
          );
          assert.equal(computed.next, own.next);
          if (own.next === undefined) break;
          cursor = own.next;
        }
      }
  // The app's list() was never asked for a page or an order it may not know.
  assert.ok(app.lists.every((options) => options.limit === undefined && options.order === undefined));
});

test("a created-order cursor resumes after its run even when that run has left the status filtered on", async () => {
  const inner = await filled();
  const app = appStore(inner);
  const first = await listSummaries(app, { status: "running", limit: 2 });
  const last = first.runs.at(-1)!;
  const state = (await inner.load(last.runId))!;
  state.revision += 1;
  state.status = "completed";
  await inner.save(state, { expectedRevision: state.revision - 1 });
  const rest = await listSummaries(app, { status: "running", limit: 100, cursor: first.next! });
  const all = (await listSummaries(app, { status: "running" })).runs.map((run) => run.runId);
  assert.deepEqual(
    rest.runs.map((run) => run.runId),
    all.slice(1),
  );
});

test("the store's own summaries are used when it has them", async () => {
  const inner = await filled();
  let asked = 0;
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "summaries")
        return (options: ListOptions) => {
          asked += 1;
          return target.summaries(options);
        };
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  assert.equal((await listSummaries(store, { limit: 5 })).runs.length, 5);
  assert.equal(asked, 1);
});

test("listSummaries refuses bad options, changedSince on a store without a change sequence, and what is not a store", async () => {
  const app = appStore(await filled());
  const refused = (error: unknown) => isLeashError(error, "invalid_option");
  for (const options of [{ limit: 0 }, { order: "sideways" }, { cursor: "x" }, { changedSince: 0 }, { limits: 1 }])
    await assert.rejects(listSummaries(app, options as ListOptions), refused, JSON.stringify(options));
  await assert.rejects(listSummaries({} as RunStore), refused);
  const unknownRun = Buffer.from(JSON.stringify(["created_asc", "", "nobody"])).toString("base64url");
  await assert.rejects(listSummaries(app, { cursor: unknownRun }), refused);
  await assert.rejects(new MemoryStore().summaries({ cursor: unknownRun }), refused);
});

test("updated_desc breaks ties by run id in code-point order, as UTF-8 bytes compare, past the basic plane too", async () => {
  const store = new MemoryStore();
  const ids = ["a", "\uffff", "\u{10000}", "\ue000", "z"];
  for (const runId of ids) await store.create(stateOf(runId));
  const listed = (await store.summaries({ order: "updated_desc" })).runs.map((run) => run.runId);
  const byBytes = [...ids].sort((left, right) => Buffer.compare(Buffer.from(right), Buffer.from(left)));
  assert.deepEqual(listed, byBytes);
  assert.equal(listed[0], "\u{10000}");
  let cursor: string | undefined;
  const paged: string[] = [];
  do {
    const page = await store.summaries({
      order: "updated_desc",
      limit: 2,
      ...(cursor === undefined ? {} : { cursor }),
    });
    paged.push(...page.runs.map((run) => run.runId));
    cursor = page.next;
  } while (cursor !== undefined);
  assert.deepEqual(paged, byBytes);
});
