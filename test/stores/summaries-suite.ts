// The listing contract every built-in store keeps: `summaries()`, paged `list()`, the orders, the
// cursors and the change sequence, stated through the public API on a fresh store for each test.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Approval, MAX_LIST_LIMIT, cursorAfter, isLeashError } from "../../src/index.js";
import type { AuditSink, ListOptions, RunOrder, RunState, RunStatus, RunStore, RunSummary } from "../../src/index.js";
import type { UnreadableRun } from "../../src/stores/run-store.js";
import { summaryOf } from "../../src/stores/run-summary.js";
import { refusedWith, stateOf, withStore, writerAgent } from "../contract/contract-fixtures.js";
import type { MakeStore } from "../contract/contract-fixtures.js";

type Store = RunStore & AuditSink;

/** The store's summaries, checked to be there: a built-in store must have them. */
function summariesOf(store: Store): NonNullable<RunStore["summaries"]> {
  assert.equal(typeof store.summaries, "function", "the store has summaries()");
  return store.summaries!.bind(store);
}

/** The store's change sequence, checked to be there. */
function sequenceOf(store: Store): () => Promise<number> {
  assert.equal(typeof store.changeSequence, "function", "the store has changeSequence()");
  return store.changeSequence!.bind(store);
}

/** A state made as the core makes one, with the given status, goal and update time. */
function runOf(runId: string, options: { status?: RunStatus; updatedAt?: string; goal?: string } = {}): RunState {
  const state = stateOf(runId, { status: options.status ?? "running", goal: options.goal ?? `the goal of ${runId}` });
  if (options.updatedAt !== undefined) state.updatedAt = options.updatedAt;
  return state;
}

/** Saves a run again as the core would: the next revision, and the given update time and status. */
async function touch(store: Store, runId: string, change: { updatedAt?: string; status?: RunStatus } = {}) {
  const state = await store.load(runId);
  assert.ok(state !== null, runId);
  const expectedRevision = state.revision;
  state.revision = expectedRevision + 1;
  if (change.updatedAt !== undefined) state.updatedAt = change.updatedAt;
  if (change.status !== undefined) state.status = change.status;
  await store.save(state, { expectedRevision });
  return state;
}

/** Every summary and every state of a listing, read page by page with `limit`, checking each page's `next`. */
async function readPages(store: Store, options: ListOptions & { limit: number }) {
  const summaries = summariesOf(store);
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages += 1) {
    const asked = cursor === undefined ? options : { ...options, cursor };
    const page = await summaries(asked);
    assert.ok(page.runs.length <= options.limit, "a page holds at most `limit` runs");
    const states = await store.list(asked);
    assert.deepEqual(
      states.map((state) => state.runId),
      page.runs.map((run) => run.runId),
      `list() gives the runs of summaries() for ${JSON.stringify(asked)}`,
    );
    seen.push(...page.runs.map((run) => run.runId));
    if (page.runs.length < options.limit) {
      assert.equal(page.next, undefined, "a page that is not full is the last");
      return seen;
    }
    assert.equal(typeof page.next, "string", "a full page has a next cursor");
    // The cursor made from the last state read continues where `next` does.
    const last = states.at(-1)!;
    const fromState = await summaries({ ...options, cursor: cursorAfter(last, options.order) });
    const fromNext = await summaries({ ...options, cursor: page.next! });
    assert.deepEqual(
      fromState.runs.map((run) => run.runId),
      fromNext.runs.map((run) => run.runId),
    );
    cursor = page.next;
  }
  throw new Error("the pages never ended");
}

/** A value as JSON gives it back. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** Ids compared by code point, as UTF-8 bytes compare (the ids here are ASCII, where it is plain `<`). */
const byId = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/** The runs made by {@link fillStore}: ids out of alphabetical order, statuses, prefixes and update times with ties. */
interface Filled {
  created: { runId: string; status: RunStatus; updatedAt: string }[];
}

const TIMES = ["2026-03-01T00:00:00.000Z", "2026-03-02T00:00:00.000Z", "2026-03-03T00:00:00.000Z"];

async function fillStore(store: Store, count = 23): Promise<Filled> {
  const created: Filled["created"] = [];
  for (let index = 0; index < count; index += 1) {
    // Ids neither sorted nor reverse sorted in creation order, two prefixes, three statuses, and
    // update times with many ties, so an order that is not the contract's shows.
    const runId = `${index % 4 === 0 ? "b" : "a"}-${String((index * 7) % count).padStart(2, "0")}-${index}`;
    const status = (["running", "awaiting_approval", "completed"] as const)[index % 3]!;
    const updatedAt = TIMES[(index * 5) % TIMES.length]!;
    await store.create(runOf(runId, { status, updatedAt }));
    created.push({ runId, status, updatedAt });
  }
  return { created };
}

/** The ids the contract says a listing gives, in its order. */
function expected(filled: Filled["created"], options: ListOptions): string[] {
  const runs = filled.filter(
    (run) =>
      (options.status === undefined || run.status === options.status) &&
      (options.runIdPrefix === undefined || run.runId.startsWith(options.runIdPrefix)),
  );
  const order: RunOrder = options.order ?? "created_asc";
  if (order === "created_desc") runs.reverse();
  if (order === "updated_desc")
    runs.sort((left, right) => byId(right.updatedAt, left.updatedAt) || byId(right.runId, left.runId));
  return runs.map((run) => run.runId);
}

const FILTERS: ListOptions[] = [
  {},
  { status: "running" },
  { runIdPrefix: "a-" },
  { status: "awaiting_approval", runIdPrefix: "b-" },
  { runIdPrefix: "nothing" },
];

/**
 * Defines `describe(name)` with the listing contract's tests on fresh stores from `makeStore`;
 * `damages` says whether the store has a driver through which a test can damage a stored row.
 */
export function summariesConformance(name: string, makeStore: MakeStore, damages: boolean): void {
  describe(`${name}: summaries and paged listings`, () => {
    test("summaries() gives, for every run, the fields summaryOf() computes from its state", () =>
      withStore(makeStore, async (store) => {
        const summaries = summariesOf(store);
        const agent = writerAgent(store, []);
        const paused = await agent.run("save the report", { runId: "paused" });
        const answered = await agent.run("save it again", { runId: "answered" });
        await store.answer("answered", Approval.grant(answered.pending!.digest, "allen"));
        const done = await agent.run("save it a third time", { runId: "done" });
        await agent.resume("done", { approvals: [Approval.grant(done.pending!.digest, "allen")] });
        // A goal past the summary's length, cut right after half of a pair.
        await store.create(runOf("long", { goal: `${"g".repeat(199)}😀 and the rest`, status: "failed" }));
        await store.create(runOf("plain"));
        const page = await summaries();
        assert.equal(page.next, undefined, "without a limit there is no next page");
        assert.deepEqual(
          page.runs.map((run) => run.runId),
          ["paused", "answered", "done", "long", "plain"],
        );
        const sequence = await sequenceOf(store)();
        for (const run of page.runs) {
          const state = await store.load(run.runId);
          // Compared as JSON: a field that is `undefined` may be left out, as JSON leaves it out.
          assert.deepEqual(asJson(run), asJson(summaryOf(state!, run.change)), run.runId);
          assert.ok(Number.isSafeInteger(run.change) && run.change > 0 && run.change <= sequence, run.runId);
        }
        const byRun = new Map(page.runs.map((run) => [run.runId, run] as const));
        assert.equal(byRun.get("paused")?.pendingTool, "save");
        assert.equal(byRun.get("paused")?.pendingDigest, paused.pending!.digest);
        assert.equal(byRun.get("answered")?.answers, 1);
        assert.equal(byRun.get("done")?.status, "completed");
        assert.equal(byRun.get("long")?.goal, `${"g".repeat(199)}…`);
        assert.equal(byRun.get("long")?.goalShortened, true);
      }));

    test("every order pages with limit and next, without a gap or a repeat, alone and with status and runIdPrefix", () =>
      withStore(makeStore, async (store) => {
        const { created } = await fillStore(store);
        for (const order of ["created_asc", "created_desc", "updated_desc"] as const)
          for (const filter of FILTERS)
            for (const limit of [1, 4, 7, 23, MAX_LIST_LIMIT]) {
              const options = { ...filter, order, limit };
              assert.deepEqual(await readPages(store, options), expected(created, options), JSON.stringify(options));
            }
        // The default order is creation order, for summaries and list alike.
        const all = created.map((run) => run.runId);
        assert.deepEqual(
          (await summariesOf(store)()).runs.map((run) => run.runId),
          all,
        );
        assert.deepEqual(
          (await store.list()).map((state) => state.runId),
          all,
        );
        assert.deepEqual(
          (await store.list({ order: "updated_desc" })).map((state) => state.runId),
          expected(created, { order: "updated_desc" }),
        );
      }));

    test("a run saved or created between two pages does not make the created orders skip or repeat", () =>
      withStore(makeStore, async (store) => {
        const { created } = await fillStore(store, 12);
        const ids = created.map((run) => run.runId);
        for (const order of ["created_asc", "created_desc"] as const) {
          const summaries = summariesOf(store);
          const seen: string[] = [];
          let page = await summaries({ order, limit: 5 });
          let round = 0;
          for (;;) {
            seen.push(...page.runs.map((run) => run.runId));
            // Save a run already read, the run the cursor points at and one not read yet, and add a run.
            const read = page.runs[0]?.runId;
            const unread = ids.find((runId) => !seen.includes(runId));
            for (const runId of [read, page.runs.at(-1)?.runId, unread])
              if (runId !== undefined)
                await touch(store, runId, { updatedAt: `2026-04-0${(round % 9) + 1}T00:00:00.000Z` });
            await store.create(runOf(`late-${order}-${round}`));
            round += 1;
            if (page.next === undefined) break;
            page = await summaries({ order, limit: 5, cursor: page.next });
          }
          const before = order === "created_asc" ? ids : [...ids].reverse();
          // Ascending, the runs created while paging come after the cursor and may be read; never twice.
          assert.deepEqual(
            seen.filter((runId) => !runId.startsWith(`late-${order}-`)),
            before,
          );
          assert.equal(new Set(seen).size, seen.length, "no run twice");
          if (order === "created_desc") assert.ok(!seen.some((runId) => runId.startsWith(`late-${order}-`)));
          ids.push(...(await store.list({ runIdPrefix: `late-${order}-` })).map((state) => state.runId));
        }
      }));

    test("a cursor made for another order, a cursor that is not one, and bad limits or orders are refused with invalid_option", () =>
      withStore(makeStore, async (store) => {
        await fillStore(store, 4);
        const summaries = summariesOf(store);
        const first = (await summaries({ limit: 1 })).runs[0]!;
        const bad: unknown[] = [
          { limit: 0 },
          { limit: -1 },
          { limit: 1.5 },
          { limit: MAX_LIST_LIMIT + 1 },
          { limit: "3" },
          { limit: Number.NaN },
          { limit: Number.POSITIVE_INFINITY },
          { order: "updated_asc" },
          { cursor: cursorAfter(first, "created_asc"), order: "updated_desc" },
          { cursor: cursorAfter(first, "updated_desc") },
          { cursor: cursorAfter(first, "created_desc"), order: "created_asc", limit: 2 },
          { cursor: "not a cursor" },
          { cursor: Buffer.from(JSON.stringify(["sideways", "x", "y"])).toString("base64url") },
          // Forged parts no stored run has (PostgreSQL's text cannot even hold a NUL).
          {
            cursor: Buffer.from(JSON.stringify(["updated_desc", "\u0000", "a"])).toString("base64url"),
            order: "updated_desc",
          },
          { cursor: Buffer.from(JSON.stringify(["created_asc", "x", "a\u0000"])).toString("base64url") },
          { cursor: Buffer.from(JSON.stringify(["created_asc", "x", "\ud800"])).toString("base64url") },
          { cursor: 7 },
          { changedSince: -1 },
          { changedSince: 0.5 },
          { changedSince: "1" },
          { limits: 3 },
        ];
        for (const options of bad) {
          await assert.rejects(
            summaries(options as ListOptions),
            refusedWith("invalid_option"),
            JSON.stringify(options),
          );
          await assert.rejects(
            store.list(options as ListOptions),
            refusedWith("invalid_option"),
            JSON.stringify(options),
          );
        }
        assert.equal((await summaries()).runs.length, 4, "a refused listing changes nothing");
      }));

    test("changeSequence() grows on every create, save and answer, and changedSince gives exactly the runs changed after it", () =>
      withStore(makeStore, async (store) => {
        const sequence = sequenceOf(store);
        const summaries = summariesOf(store);
        const start = await sequence();
        assert.ok(Number.isSafeInteger(start) && start >= 0);
        assert.deepEqual((await summaries({ changedSince: start })).runs, []);
        await fillStore(store, 6);
        const afterCreates = await sequence();
        assert.ok(afterCreates >= start + 6, "every create moves it");
        const agent = writerAgent(store, []);
        const paused = await agent.run("save the report", { runId: "paused" });
        const afterRun = await sequence();
        assert.ok(afterRun > afterCreates);
        // Nothing changed: the same value, and nothing changed since it.
        assert.equal(await sequence(), afterRun);
        assert.deepEqual((await summaries({ changedSince: afterRun })).runs, []);
        assert.deepEqual(await store.list({ changedSince: afterRun }), []);

        const ids = (await summaries()).runs.map((run) => run.runId);
        await touch(store, ids[4]!);
        const afterSave = await sequence();
        assert.ok(afterSave > afterRun, "a save moves it");
        await store.answer("paused", Approval.grant(paused.pending!.digest, "allen"));
        const afterAnswer = await sequence();
        assert.ok(afterAnswer > afterSave, "an answer moves it");
        await touch(store, ids[1]!);
        await store.create(runOf("newest"));
        const end = await sequence();

        const changed = async (since: number, options: ListOptions = {}) =>
          (await summaries({ ...options, changedSince: since })).runs.map((run) => run.runId);
        assert.deepEqual(await changed(afterRun), [ids[1], ids[4], "paused", "newest"]);
        assert.deepEqual(await changed(afterSave), [ids[1], "paused", "newest"]);
        assert.deepEqual(await changed(afterAnswer), [ids[1], "newest"]);
        assert.deepEqual(await changed(end), []);
        assert.deepEqual(await changed(afterRun, { order: "created_desc" }), ["newest", "paused", ids[4], ids[1]]);
        assert.deepEqual(await changed(afterRun, { status: "awaiting_approval" }), [ids[1], ids[4], "paused"]);
        assert.deepEqual(await changed(afterRun, { status: "running" }), ["newest"]);
        for (const run of (await summaries({ changedSince: afterRun })).runs) assert.ok(run.change > afterRun);
        for (const run of (await summaries()).runs.filter((run) => !(run.change > afterRun)))
          assert.ok(!["paused", "newest", ids[1], ids[4]].includes(run.runId));
        assert.deepEqual(
          (await store.list({ changedSince: afterRun })).map((state) => state.runId),
          await changed(afterRun),
        );
        for (const order of ["created_asc", "created_desc", "updated_desc"] as const)
          assert.deepEqual(
            [...(await readPages(store, { changedSince: afterRun, limit: 1, order }))].sort(),
            [ids[1], ids[4], "paused", "newest"].sort(),
            order,
          );
      }));

    if (damages)
      test("a run whose stored state cannot be read is reported by list() and does not fail summaries()", () =>
        withStore(makeStore, async (store, raw) => {
          assert.ok(raw !== undefined, "the store has a driver");
          await store.create(runOf("good-1", { status: "awaiting_approval" }));
          await store.create(runOf("bad", { status: "awaiting_approval" }));
          await store.create(runOf("good-2", { status: "awaiting_approval" }));
          await raw.setStateText("bad", "{ not a state");
          const summaries = await summariesOf(store)({ status: "awaiting_approval" });
          assert.deepEqual(
            summaries.runs.map((run: RunSummary) => run.runId),
            ["good-1", "bad", "good-2"],
          );
          const unreadable: UnreadableRun[] = [];
          const states = await store.list({
            status: "awaiting_approval",
            onUnreadable: (problem) => unreadable.push(problem),
          });
          assert.deepEqual(
            states.map((state) => state.runId),
            ["good-1", "good-2"],
          );
          assert.deepEqual(
            unreadable.map((problem) => problem.runId),
            ["bad"],
          );
          assert.ok(isLeashError(unreadable[0]?.error), String(unreadable[0]?.error));
        }));
  });
}
