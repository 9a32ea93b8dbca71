// A raise whose records reached a separate sink while the state that holds it was never saved (the
// process died in between): recovery goes on with the raise the trail holds, and the state agrees.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, LeashError, MemoryAuditSink, stateAgreesWithTrail, tool } from "../../src/index.js";
import type { LimitApprovalRequest, RunState, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";

/** The store, with every save of a state that matches `dies` refused, as a process that died before it. */
function dyingStore(store: SqliteStore, dies: (state: RunState) => boolean): RunStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (key !== "save") return method.bind(target);
      return (state: RunState, options: unknown) => {
        if (dies(state)) return Promise.reject(new LeashError("store_failed", "the process died before this save"));
        return method.call(target, state, options);
      };
    },
  });
}

test("a raise the trail holds and the state never saved is kept by recovery, which runs on with it", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const file = new SqliteStore(`${folder.path}/runs.db`);
  t.after(() => file.close());
  const sink = new MemoryAuditSink();
  let ticks = 0;
  const agentOn = (store: RunStore) =>
    new Agent({
      tools: [tool({ name: "tick", execute: () => ++ticks })],
      planner: (state) => (state.toolCalls >= 3 ? Decision.finish(state.toolCalls) : Decision.act("tick", {})),
      store,
      audit: sink,
      limits: { maxToolCalls: 1, askToRaise: ["max_tool_calls"] },
    });
  const paused = await agentOn(file).run("tick", { runId: "raise-crash" });
  const pending = paused.pending as LimitApprovalRequest;
  // The first save that holds the raise is the claim's checkpoint, after its records were appended.
  const dying = agentOn(dyingStore(file, (state) => state.limits.maxToolCalls === 3));
  await assert.rejects(dying.resume("raise-crash", { approvals: [Approval.raise(pending.digest, "noor", 3)] }));
  assert.equal(ticks, 1);
  const saved = await file.load("raise-crash");
  assert.equal(saved?.status, "running");
  assert.equal(saved?.limits.maxToolCalls, 1);
  assert.ok((await sink.read("raise-crash")).some((record) => record.event === "limit_raised"));

  const done = await agentOn(file).resume("raise-crash");
  assert.equal(done.status, "completed", JSON.stringify(done.pending));
  assert.equal(ticks, 3);
  assert.equal(done.limits.maxToolCalls, 3);
  assert.deepEqual(
    stateAgreesWithTrail((await file.load("raise-crash"))!, await sink.read("raise-crash")).problems,
    [],
  );
});
