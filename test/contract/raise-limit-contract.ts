// The part of the store contract for runs paused on a limit (`limits.askToRaise`): a raise recorded
// with answer() is checked against the request, audited at once, and acted on by resume(runId); the
// state and the trail agree after it, on every store.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, stateAgreesWithTrail, tool, verifyAudit } from "../../src/index.js";
import type { AuditSink, LimitApprovalRequest, RunStore } from "../../src/index.js";
import { refusedWith, withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

/** Ticks until three calls ran, asking to raise max_tool_calls past one. */
function tickAgent(store: RunStore & AuditSink, ticks: string[]): Agent {
  return new Agent({
    tools: [tool({ name: "tick", execute: () => ticks.push("tick") })],
    planner: (state) => (state.toolCalls >= 3 ? Decision.finish(state.toolCalls) : Decision.act("tick", {})),
    store,
    audit: store,
    limits: { maxToolCalls: 1, askToRaise: ["max_tool_calls"] },
  });
}

/** The store-contract tests of raising a limit, defined inside the caller's `describe`. */
export function raiseLimitContract(makeStore: MakeStore): void {
  test("a raise recorded with answer() is checked, audited at once and acted on by resume(runId); state and trail agree", () =>
    withStore(makeStore, async (store) => {
      const ticks: string[] = [];
      const agent = tickAgent(store, ticks);
      const paused = await agent.run("tick", { runId: "raise" });
      const pending = paused.pending as LimitApprovalRequest;
      assert.deepEqual([pending.kind, pending.limit, pending.used, pending.allowed], ["limit", "max_tool_calls", 1, 1]);
      const before = (await store.load("raise"))?.toJSON();
      const trail = await store.read("raise");
      for (const bad of [Approval.raise(pending.digest, "noor", 1), Approval.raise(pending.digest, "noor", 2.5)])
        await assert.rejects(store.answer("raise", bad), refusedWith("invalid_answer"));
      await assert.rejects(
        store.answer("raise", Approval.grant(pending.digest, "noor")),
        refusedWith("invalid_answer"),
      );
      assert.deepEqual((await store.load("raise"))?.toJSON(), before);
      assert.deepEqual(await store.read("raise"), trail);

      await store.answer("raise", Approval.raise(pending.digest, "noor", 3, "fine"));
      assert.deepEqual((await store.load("raise"))?.answers, [
        { digest: pending.digest, granted: true, approver: "noor", note: "fine", raiseTo: 3, audited: true },
      ]);
      const done = await agent.resume("raise");
      assert.equal(done.status, "completed");
      assert.deepEqual(ticks, ["tick", "tick", "tick"]);
      assert.equal((await store.load("raise"))?.limits.maxToolCalls, 3);
      const records = await store.read("raise");
      assert.deepEqual(verifyAudit(records), []);
      assert.deepEqual(stateAgreesWithTrail((await store.load("raise"))!, records).problems, []);
      assert.deepEqual(
        records.filter((record) => record.event === "limit_raised").map((record) => record.data),
        [{ limit: "max_tool_calls", from: 1, to: 3, by: "noor" }],
      );
    }));

  test("a denial recorded with answer() ends the run stopped with the limit's reason; state and trail agree", () =>
    withStore(makeStore, async (store) => {
      const ticks: string[] = [];
      const agent = tickAgent(store, ticks);
      const paused = await agent.run("tick", { runId: "no-raise" });
      await store.answer("no-raise", Approval.deny(paused.pending!.digest, "noor", "enough"));
      const ended = await agent.resume("no-raise");
      assert.equal(ended.status, "stopped");
      assert.equal(ended.stopReason, "max_tool_calls");
      assert.deepEqual(ticks, ["tick"]);
      const records = await store.read("no-raise");
      assert.deepEqual(stateAgreesWithTrail((await store.load("no-raise"))!, records).problems, []);
    }));
}
