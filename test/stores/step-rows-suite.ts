// The tests every store that keeps each step of a run as a row of its own runs (SQLite, PostgreSQL):
// a save writes the header and only the steps that may have changed, a save after another process
// moved the run writes every step, and a run reads back as it was saved. The rows written are counted
// by a trigger the workspace puts on the store's steps table, so the tests see what the database was
// asked to write, not what the store meant to.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, isLeashError, tool } from "../../src/index.js";
import type { AuditSink, RunState, RunStore, Step } from "../../src/index.js";
import { stateOf } from "../contract/contract-fixtures.js";

/** A store under test: a store object that is also the sink, and a way to close it. */
export type RowStore = RunStore & AuditSink;

/** One write of a step row, as the trigger saw it. */
export interface StepWrite {
  runId: string;
  index: number;
  /** Whether the step written had an outcome. */
  settled: boolean;
}

/** One test's backend, with a trigger on its steps table. */
export interface StepRowsWorkspace {
  /** A new store object on the backend, as another process would open it; closed by `remove`. */
  open(): RowStore;
  /** Every write of a step row so far, in the order written. */
  stepWrites(): Promise<StepWrite[]>;
  /** Closes the stores opened and removes the backend. */
  remove(): Promise<void>;
}

/** A step that has ended (`settled`) or still waits for its call to end. */
function stepOf(index: number, settled: boolean): Step {
  return {
    index,
    decision: { type: "act", tool: "noop", args: { index } },
    outcome: settled ? "executed" : null,
    result: settled ? `result ${index}` : null,
  };
}

/** A state at `revision` whose steps are given as settled (true) or not (false). */
function stateWith(runId: string, revision: number, steps: boolean[]): RunState {
  const state = stateOf(runId, { revision });
  state.steps = steps.map((settled, index) => stepOf(index, settled));
  state.toolCalls = steps.length;
  return state;
}

/** The indexes written since `before` writes, in order. */
async function writtenSince(space: StepRowsWorkspace, before: number): Promise<number[]> {
  return (await space.stepWrites()).slice(before).map((write) => write.index);
}

async function withWorkspace(
  workspace: () => Promise<StepRowsWorkspace>,
  body: (space: StepRowsWorkspace) => Promise<void>,
): Promise<void> {
  const space = await workspace();
  try {
    await body(space);
  } finally {
    await space.remove();
  }
}

/** Defines `describe(name)` with the step-row tests, each on a fresh workspace. */
export function stepRowsSuite(name: string, workspace: () => Promise<StepRowsWorkspace>): void {
  describe(name, () => {
    test("an agent's long run writes each step row at most twice, and never once the step has an outcome", () =>
      withWorkspace(workspace, async (space) => {
        const store = space.open();
        const steps = 120;
        const noop = tool({ name: "noop", parameters: { type: "object", properties: {} }, execute: () => "ok" });
        const agent = new Agent({
          tools: [noop],
          planner: (state) => (state.toolCalls < steps ? Decision.act("noop", {}) : Decision.finish("done")),
          limits: { maxSteps: steps + 1 },
          store,
          audit: store,
        });
        const state = await agent.run("call it often", { runId: "long" });
        assert.equal(state.toolCalls, steps);
        const writes = await space.stepWrites();
        const byIndex = new Map<number, StepWrite[]>();
        for (const write of writes) byIndex.set(write.index, [...(byIndex.get(write.index) ?? []), write]);
        assert.equal(byIndex.size, state.steps.length);
        for (const [index, rows] of byIndex) {
          assert.ok(rows.length <= 2, `step ${index} was written ${rows.length} times`);
          assert.ok(
            rows.slice(0, -1).every((row) => !row.settled),
            `step ${index} was written again after it had an outcome`,
          );
        }
        assert.deepEqual((await store.load("long"))?.toJSON(), state.toJSON());
      }));

    test("a save writes only the steps from the first one without an outcome at this store's last save", () =>
      withWorkspace(workspace, async (space) => {
        const store = space.open();
        await store.create(stateWith("r1", 1, [true, true, false]));
        assert.deepEqual(await writtenSince(space, 0), [0, 1, 2]);
        await store.save(stateWith("r1", 2, [true, true, true, false]), { expectedRevision: 1 });
        assert.deepEqual(await writtenSince(space, 3), [2, 3]);
        await store.save(stateWith("r1", 3, [true, true, true, true, true, false]), { expectedRevision: 2 });
        assert.deepEqual(await writtenSince(space, 5), [3, 4, 5]);
        await store.save(stateWith("r1", 4, [true, true, true, true, true, false]), { expectedRevision: 3 });
        assert.deepEqual(await writtenSince(space, 8), [5]);
        assert.deepEqual(
          (await store.load("r1"))?.toJSON(),
          stateWith("r1", 4, [true, true, true, true, true, false]).toJSON(),
        );
      }));

    test("a save after another process moved the run writes every step and deletes rows past the last", () =>
      withWorkspace(workspace, async (space) => {
        const mine = space.open();
        const theirs = space.open();
        await mine.create(stateWith("r1", 1, [true, false]));
        await mine.save(stateWith("r1", 2, [true, true, false]), { expectedRevision: 1 });
        // Another process resumes the run and moves it on twice.
        const loaded = (await theirs.load("r1")) as RunState;
        assert.equal(loaded.revision, 2);
        await theirs.save(stateWith("r1", 3, [true, true, true, true, false]), { expectedRevision: 2 });
        await theirs.save(stateWith("r1", 4, [true, true, true, true, true]), { expectedRevision: 3 });
        // This process's last save was revision 2: its next, of revision 5, cannot trust what it wrote.
        const before = (await space.stepWrites()).length;
        const next = stateWith("r1", 5, [true, true, true, true, true, false]);
        await mine.save(next, { expectedRevision: 4 });
        assert.deepEqual(await writtenSince(space, before), [0, 1, 2, 3, 4, 5]);
        assert.deepEqual((await theirs.load("r1"))?.toJSON(), next.toJSON());
        // A state with fewer steps than the rows (no core makes one, but a store keeps what it is given).
        const shorter = stateWith("r1", 6, [true, true]);
        await theirs.save(shorter, { expectedRevision: 5 });
        assert.deepEqual((await mine.load("r1"))?.toJSON(), shorter.toJSON());
        const shortest = stateWith("r1", 7, [true]);
        await theirs.save(shortest, { expectedRevision: 6 });
        assert.deepEqual((await mine.load("r1"))?.toJSON(), shortest.toJSON());
        assert.deepEqual(
          (await mine.list()).map((state) => state.toJSON()),
          [shortest.toJSON()],
        );
      }));

    test("a refused save writes no step row", () =>
      withWorkspace(workspace, async (space) => {
        const mine = space.open();
        const theirs = space.open();
        await mine.create(stateWith("r1", 1, [true, false]));
        await theirs.save(stateWith("r1", 2, [true, true, false]), { expectedRevision: 1 });
        const before = (await space.stepWrites()).length;
        await assert.rejects(
          mine.save(stateWith("r1", 2, [true, false, false, false]), { expectedRevision: 1 }),
          (error) => isLeashError(error, "stale_state"),
        );
        await assert.rejects(mine.save(stateWith("ghost", 2, [false]), { expectedRevision: 1 }), (error) =>
          isLeashError(error, "run_not_found"),
        );
        assert.deepEqual(await writtenSince(space, before), []);
        assert.deepEqual((await mine.load("r1"))?.toJSON(), stateWith("r1", 2, [true, true, false]).toJSON());
      }));

    test("after many saves, load and list give the state last saved, to this store and to a fresh one", () =>
      withWorkspace(workspace, async (space) => {
        const store = space.open();
        const settled: boolean[] = [];
        let state = stateWith("many", 1, settled);
        await store.create(state);
        for (let revision = 2; revision <= 200; revision++) {
          // Each save ends the step in flight, if any, and on most saves starts another.
          if (settled.length > 0) settled[settled.length - 1] = true;
          if (revision % 5 !== 0) settled.push(false);
          state = stateWith("many", revision, settled);
          state.goal = `goal at revision ${revision}`;
          await store.save(state, { expectedRevision: revision - 1 });
          if (revision % 50 === 0) assert.deepEqual((await store.load("many"))?.toJSON(), state.toJSON());
        }
        assert.deepEqual((await store.load("many"))?.toJSON(), state.toJSON());
        const fresh = space.open();
        assert.deepEqual((await fresh.load("many"))?.toJSON(), state.toJSON());
        assert.deepEqual(
          (await fresh.list({ status: "running" })).map((listed) => listed.toJSON()),
          [state.toJSON()],
        );
      }));
  });
}
