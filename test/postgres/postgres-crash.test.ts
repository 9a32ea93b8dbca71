// Real crashes on PostgreSQL: a child process runs an agent with the store as store and sink, is
// killed with SIGKILL mid-call, and a fresh agent on the same schema resumes the run.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAudit } from "../../src/index.js";
import type { AuditRecord, RunState } from "../../src/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { readEffects, STARTED_MARKER, storeAgent } from "../fixtures/stores/store-agent.js";
import type { ToolKind } from "../fixtures/stores/store-agent.js";
import { dropSchema, freshSchemaName, withPostgres } from "./database.js";
import { killHard, startPostgresFixture } from "./postgres-fixture.js";

interface Workspace {
  schema: string;
  effects: string;
  open: () => PostgresStore;
  remove: () => Promise<void>;
}

function workspace(url: string): Workspace {
  const directory = mkdtempSync(join(tmpdir(), "leash-pg-crash-"));
  const schema = freshSchemaName();
  return {
    schema,
    effects: join(directory, "effects.jsonl"),
    open: () => new PostgresStore({ connectionString: url, schema }),
    remove: async () => {
      rmSync(directory, { recursive: true, force: true });
      await dropSchema(url, schema);
    },
  };
}

/** Starts a run in a child whose tool hangs, and kills the child once the tool has started. */
async function crashMidCall(url: string, space: Workspace, tool: ToolKind, runId: string): Promise<void> {
  const child = startPostgresFixture("crash-child.ts", [url, space.schema, "hang", tool, runId, space.effects]);
  try {
    await child.waitFor((line) => line === STARTED_MARKER, 60_000);
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

withPostgres("PostgresStore under SIGKILL", (url) => {
  describe("PostgresStore under SIGKILL", () => {
    test("an approved non-idempotent write killed mid-call is interrupted at resume and never run again", async () => {
      const space = workspace(url);
      try {
        await crashMidCall(url, space, "write", "killed-write");
        assert.equal(readEffects(space.effects).length, 1);
        const store = space.open();
        try {
          const saved = (await store.load("killed-write")) as RunState;
          assert.equal(saved.status, "running");
          assert.equal(saved.steps[0]?.starts, 1);
          assertAgrees(await store.read(), saved);
          const state = await storeAgent({ store, tool: "write", effectsFile: space.effects, approve: true }).resume("killed-write");
          assert.equal(state.status, "completed");
          assert.equal(state.steps[0]?.outcome, "interrupted");
          assert.equal(state.answer, "interrupted");
          assert.equal(state.toolCalls, 1);
          assert.equal(readEffects(space.effects).length, 1, "the write ran once in all");
          assertAgrees(await store.read(), state);
          assert.deepEqual((await store.load("killed-write"))?.toJSON(), state.toJSON());
        } finally {
          await store.close();
        }
      } finally {
        await space.remove();
      }
    });

    test("an idempotent read killed mid-call starts again with the same idempotency key and the run completes", async () => {
      const space = workspace(url);
      try {
        await crashMidCall(url, space, "read", "killed-read");
        const store = space.open();
        try {
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
          assertAgrees(await store.read(), state);
        } finally {
          await store.close();
        }
      } finally {
        await space.remove();
      }
    });

    test("killed during a burst of runs, every stored state agrees with its trail and every run resumes", async () => {
      const space = workspace(url);
      try {
        const child = startPostgresFixture("crash-child.ts", [url, space.schema, "burst", "burst", space.effects]);
        try {
          // Killed at an arbitrary point a few dozen runs in, wherever the child then is (a commit
          // in flight is rolled back by the server when the connection drops).
          await child.waitFor((line) => line === "burst-30", 60_000);
        } finally {
          await killHard(child);
        }
        const store = space.open();
        try {
          const states = await store.list();
          assert.ok(states.length > 30);
          const trail = await store.read();
          assert.deepEqual(verifyAudit(trail), []);
          for (const state of states) {
            assertAgrees(trail, state);
            if (state.status === "completed") continue;
            // The child ran reads at even indexes and approved writes at odd ones.
            const tool = Number(state.runId.split("-")[1]) % 2 === 0 ? "read" : "write";
            const resumed = await storeAgent({ store, tool, effectsFile: space.effects, approve: true }).resume(state.runId);
            assert.equal(resumed.status, "completed");
            assertAgrees(await store.read(), resumed);
          }
          assert.equal(new Set((await store.read()).map((record) => record.run)).size, states.length, "no trail without a state");
        } finally {
          await store.close();
        }
      } finally {
        await space.remove();
      }
    });
  });
});
