// Real crashes on a SQLite file: a child process runs an agent with the store as store and sink,
// is killed with SIGKILL mid-call, and a fresh agent on the same file resumes the run.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAudit } from "../../src/index.js";
import type { AuditRecord, RunState } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { readEffects, STARTED_MARKER, storeAgent } from "../fixtures/stores/store-agent.js";
import type { ToolKind } from "../fixtures/stores/store-agent.js";
import { killHard, startFixture } from "./fixture-process.js";

function workspace(): { database: string; effects: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-crash-"));
  return { database: join(directory, "runs.db"), effects: join(directory, "effects.jsonl"), remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** Starts a run in a child whose tool hangs, and kills the child once the tool has started. */
async function crashMidCall(database: string, effects: string, tool: ToolKind, runId: string): Promise<void> {
  const child = startFixture("crash-child.ts", ["sqlite", database, "hang", tool, runId, effects]);
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

describe("SqliteStore under SIGKILL", () => {
  test("an approved non-idempotent write killed mid-call is interrupted at resume and never run again", async () => {
    const { database, effects, remove } = workspace();
    try {
      await crashMidCall(database, effects, "write", "killed-write");
      assert.equal(readEffects(effects).length, 1);
      const store = new SqliteStore(database);
      try {
        const saved = (await store.load("killed-write")) as RunState;
        assert.equal(saved.status, "running");
        assert.equal(saved.steps[0]?.starts, 1);
        assertAgrees(store.records, saved);
        const state = await storeAgent({ store, tool: "write", effectsFile: effects, approve: true }).resume("killed-write");
        assert.equal(state.status, "completed");
        assert.equal(state.steps[0]?.outcome, "interrupted");
        assert.equal(state.answer, "interrupted");
        assert.equal(state.toolCalls, 1);
        assert.equal(readEffects(effects).length, 1, "the write ran once in all");
        assertAgrees(store.records, state);
        assert.deepEqual((await store.load("killed-write"))?.toJSON(), state.toJSON());
      } finally {
        await store.close();
      }
    } finally {
      remove();
    }
  });

  test("an idempotent read killed mid-call starts again with the same idempotency key and the run completes", async () => {
    const { database, effects, remove } = workspace();
    try {
      await crashMidCall(database, effects, "read", "killed-read");
      const store = new SqliteStore(database);
      try {
        const state = await storeAgent({ store, tool: "read", effectsFile: effects }).resume("killed-read");
        assert.equal(state.status, "completed");
        assert.equal(state.steps[0]?.outcome, "executed");
        assert.equal(state.steps[0]?.starts, 2);
        assert.equal(state.toolCalls, 1, "a restart is not charged again");
        const started = readEffects(effects);
        assert.equal(started.length, 2);
        assert.equal(started[0]?.idempotencyKey, started[1]?.idempotencyKey);
        assert.equal(started[1]?.pid, process.pid);
        assert.notEqual(started[0]?.pid, process.pid);
        assertAgrees(store.records, state);
      } finally {
        await store.close();
      }
    } finally {
      remove();
    }
  });

  test("killed during a burst of runs, every stored state agrees with its trail and every run resumes", async () => {
    const { database, effects, remove } = workspace();
    try {
      const child = startFixture("crash-child.ts", ["sqlite", database, "burst", "burst", effects]);
      try {
        // Killed at an arbitrary point a few dozen runs in, wherever the child then is.
        await child.waitFor((line) => line === "burst-30");
      } finally {
        await killHard(child);
      }
      const store = new SqliteStore(database);
      try {
        const states = await store.list();
        assert.ok(states.length > 30);
        assert.deepEqual(verifyAudit(store.records), []);
        for (const state of states) {
          assertAgrees(store.records, state);
          if (state.status === "completed") continue;
          // The child ran reads at even indexes and approved writes at odd ones.
          const tool = Number(state.runId.split("-")[1]) % 2 === 0 ? "read" : "write";
          const resumed = await storeAgent({ store, tool, effectsFile: effects, approve: true }).resume(state.runId);
          assert.equal(resumed.status, "completed");
          assertAgrees(store.records, resumed);
        }
        assert.equal(new Set((await store.read()).map((record) => record.run)).size, states.length, "no trail without a state");
      } finally {
        await store.close();
      }
    } finally {
      remove();
    }
  });
});
