// The crash tests every durable store runs: a child process (test/fixtures/stores/crash-child.ts)
// runs an agent with the store as store and sink, is killed with SIGKILL mid-call, and a fresh agent
// on the same store resumes the run.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { verifyAudit } from "../../src/index.js";
import type { AuditRecord, RunState } from "../../src/index.js";
import type { DurableStore } from "../fixtures/stores/open-store.js";
import { readEffects, STARTED_MARKER, storeAgent } from "../fixtures/stores/store-agent.js";
import type { ToolKind } from "../fixtures/stores/store-agent.js";
import { killHard, startFixture } from "./fixture-process.js";

/** One test's store: where the crash child finds it, how the test opens it and reads its trail. */
export interface CrashWorkspace<Store extends DurableStore> {
  /** The store kind crash-child.ts opens (see test/fixtures/stores/open-store.ts). */
  kind: "sqlite" | "postgres";
  /** The file or database URL the crash child opens. */
  location: string;
  /** Added to the crash child's environment (a PostgreSQL schema). */
  env?: Record<string, string>;
  /** The file each start of the tool appends a line to. */
  effects: string;
  /** A fresh store on the same location, as a process that starts after the crash opens it. */
  open(): Store;
  /** Every record of the store's trail, read as this store's own tests read it. */
  records(store: Store): AuditRecord[] | Promise<AuditRecord[]>;
  /** Removes the workspace. */
  remove(): void | Promise<void>;
}

/** Starts a run in a child whose tool hangs, and kills the child once the tool has started. */
async function crashMidCall(space: CrashWorkspace<DurableStore>, tool: ToolKind, runId: string): Promise<void> {
  const child = startFixture(
    "stores/crash-child.ts",
    [space.kind, space.location, "hang", tool, runId, space.effects],
    space.env,
  );
  try {
    await child.waitFor((line) => line === STARTED_MARKER);
  } finally {
    await killHard(child);
  }
}

/** The trail verifies, and the state's head is the last record of its run. */
function assertAgrees(records: AuditRecord[], state: RunState): void {
  assert.deepEqual(verifyAudit(records), []);
  const last = records.filter((record) => record.run === state.runId).at(-1);
  assert.deepEqual(state.auditHead, { seq: last?.seq, digest: last?.digest });
}

/**
 * Runs `body` on a fresh workspace, then closes the store it opened after the crash (with `open`)
 * and removes the workspace, whatever happens.
 */
async function withWorkspace<Store extends DurableStore>(
  workspace: () => CrashWorkspace<Store>,
  body: (space: CrashWorkspace<Store>, open: () => Store) => Promise<void>,
): Promise<void> {
  const space = workspace();
  let store: Store | undefined;
  try {
    await body(space, () => (store = space.open()));
  } finally {
    await store?.close();
    await space.remove();
  }
}

/** Defines the crash tests under `name`, each on a fresh workspace. */
export function crashSuite<Store extends DurableStore>(name: string, workspace: () => CrashWorkspace<Store>): void {
  describe(name, () => {
    test("an approved non-idempotent write killed mid-call is interrupted at resume and never run again", () =>
      withWorkspace(workspace, async (space, open) => {
        await crashMidCall(space, "write", "killed-write");
        assert.equal(readEffects(space.effects).length, 1);
        const store = open();
        const saved = (await store.load("killed-write")) as RunState;
        assert.equal(saved.status, "running");
        assert.equal(saved.steps[0]?.starts, 1);
        assertAgrees(await space.records(store), saved);
        const state = await storeAgent({ store, tool: "write", effectsFile: space.effects, approve: true }).resume(
          "killed-write",
        );
        assert.equal(state.status, "completed");
        assert.equal(state.steps[0]?.outcome, "interrupted");
        assert.equal(state.answer, "interrupted");
        assert.equal(state.toolCalls, 1);
        assert.equal(readEffects(space.effects).length, 1, "the write ran once in all");
        assertAgrees(await space.records(store), state);
        assert.deepEqual((await store.load("killed-write"))?.toJSON(), state.toJSON());
      }));

    test("an idempotent read killed mid-call starts again with the same idempotency key and the run completes", () =>
      withWorkspace(workspace, async (space, open) => {
        await crashMidCall(space, "read", "killed-read");
        const store = open();
        const state = await storeAgent({ store, tool: "read", effectsFile: space.effects }).resume("killed-read");
        assert.equal(state.status, "completed");
        assert.equal(state.steps[0]?.outcome, "executed");
        assert.equal(state.steps[0]?.starts, 2);
        assert.equal(state.toolCalls, 1, "a restart is not charged again");
        const started = readEffects(space.effects);
        assert.equal(started.length, 2);
        assert.equal(started[0]?.idempotencyKey, started[1]?.idempotencyKey);
        assert.equal(started[1]?.pid, process.pid);
        assert.notEqual(started[0]?.pid, process.pid);
        assertAgrees(await space.records(store), state);
      }));

    test("killed during a burst of runs, every stored state agrees with its trail and every run resumes", () =>
      withWorkspace(workspace, async (space, open) => {
        const child = startFixture(
          "stores/crash-child.ts",
          [space.kind, space.location, "burst", "burst", space.effects],
          space.env,
        );
        try {
          // Killed at an arbitrary point a few dozen runs in, wherever the child then is (a commit
          // in flight is rolled back: by SQLite's journal, by the server when the connection drops).
          await child.waitFor((line) => line === "burst-30");
        } finally {
          await killHard(child);
        }
        const store = open();
        const states = await store.list();
        assert.ok(states.length > 30);
        assert.deepEqual(verifyAudit(await space.records(store)), []);
        for (const state of states) {
          assertAgrees(await space.records(store), state);
          if (state.status === "completed") continue;
          // The child ran reads at even indexes and approved writes at odd ones.
          const tool = Number(state.runId.split("-")[1]) % 2 === 0 ? "read" : "write";
          const resumed = await storeAgent({ store, tool, effectsFile: space.effects, approve: true }).resume(
            state.runId,
          );
          assert.equal(resumed.status, "completed");
          assertAgrees(await space.records(store), resumed);
        }
        assert.equal(
          new Set((await store.read()).map((record) => record.run)).size,
          states.length,
          "no trail without a state",
        );
      }));
  });
}
