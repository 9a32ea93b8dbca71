// A worker resumes a run paused on a limit once a raise is recorded for it, as it resumes any answered
// run; a run paused on a limit with no answer is left alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, tool } from "../../src/index.js";
import type { LimitApprovalRequest } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { Worker } from "../../src/worker/index.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { recordingLogger } from "./worker-helpers.js";

test("a worker resumes a run paused on a limit once a raise is recorded, and leaves an unanswered one", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const store = new SqliteStore(`${folder.path}/runs.db`);
  t.after(() => store.close());
  let ticks = 0;
  const agent = new Agent({
    tools: [tool({ name: "tick", execute: () => ++ticks })],
    planner: (state) => (state.steps.length >= 3 ? Decision.finish(state.steps.length) : Decision.act("tick", {})),
    store,
    audit: store,
    limits: { maxSteps: 2, askToRaise: ["max_steps"] },
  });
  const raised = await agent.run("tick", { runId: "to-raise" });
  const waiting = await agent.run("tick", { runId: "left-waiting" });
  const pending = raised.pending as LimitApprovalRequest;
  assert.equal(pending.kind, "limit");
  await store.answer("to-raise", Approval.raise(pending.digest, "noor", 4), { origin: { via: "cli", user: "noor" } });

  const worker = new Worker({ agent, store, logger: recordingLogger() });
  assert.equal(await worker.runOnce(), 1);
  const done = await store.load("to-raise");
  assert.equal(done?.status, "completed");
  assert.equal(done?.limits.maxSteps, 4);
  assert.equal((await store.load("left-waiting"))?.status, "awaiting_approval");
  assert.equal((await store.load("left-waiting"))?.pending?.digest, waiting.pending?.digest);
  assert.equal(await worker.runOnce(), 0);
});
