// What a gate's session does on every store: the same suite runs on MemoryStore, SqliteStore and
// PostgresStore (gate-*.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Approval, Policy, StateError, isLeashError, stateAgreesWithTrail, verifyAudit } from "../../src/index.js";
import type { RunStoreWithAudit } from "../../src/index.js";
import { paymentGate } from "./gate-fixtures.js";

/** A store for one test, and how to close and remove it. */
export interface OpenedStore {
  store: RunStoreWithAudit;
  cleanup: () => Promise<void>;
}

/** Checks a session's trail and its stored state against it: both must hold. */
export async function assertSessionAgrees(store: RunStoreWithAudit, runId: string): Promise<void> {
  const state = await store.load(runId);
  assert.ok(state !== null);
  const records = await store.read(runId);
  assert.deepEqual(verifyAudit(records), []);
  assert.deepEqual(stateAgreesWithTrail(state, records).problems, []);
}

/** Defines the gate suite on stores that `open` makes, one per test. */
export function gateSuite(open: () => Promise<OpenedStore>): void {
  const withStore = async (body: (store: RunStoreWithAudit) => Promise<void>): Promise<void> => {
    const { store, cleanup } = await open();
    try {
      await body(store);
    } finally {
      await cleanup();
    }
  };

  test("a call the policy allows runs once and gives its result; the same call id gives it again", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-1", { goal: "answer the customer" });
      const first = await session.call("c1", "lookup", { topic: "spans" });
      assert.deepEqual(first, { status: "executed", result: "page about spans" });
      const again = await session.call("c1", "lookup", { topic: "spans" });
      assert.deepEqual(again, first);
      assert.equal(ran.lookup, 1);
      const state = await store.load("chat-1");
      assert.equal(state?.status, "running");
      assert.equal(state?.gate, true);
      assert.equal(state?.steps.length, 1);
      assert.equal(state?.steps[0]?.decision.type === "act" && state.steps[0].decision.callId, "c1");
      await assertSessionAgrees(store, "chat-1");
    }));

  test("calls a gate refuses give their outcome and why, and never run", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-2");
      const unknown = await session.call("a", "nope", {});
      assert.equal(unknown.status === "refused" && unknown.outcome, "unknown_tool");
      const invalid = await session.call("b", "lookup", { topic: 3 });
      assert.equal(invalid.status === "refused" && invalid.outcome, "invalid_arguments");
      const scope = await session.call("c", "secret", {});
      assert.equal(scope.status === "refused" && scope.outcome, "scope_denied");
      const broken = await session.call("d", "broken", {});
      assert.equal(broken.status === "refused" && broken.outcome, "tool_error");
      assert.match(broken.status === "refused" ? broken.message : "", /printer is on fire/);
      assert.equal(ran.broken, 1);
      assert.deepEqual(await session.call("d", "broken", {}), broken);
      assert.equal(ran.broken, 1);
      await assertSessionAgrees(store, "chat-2");
    }));

  test("a write waits for a person, and runs once an allowed grant is recorded with store.answer", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-3");
      const asked = await session.call("p1", "pay", { amount: 10 }, { reason: "invoice 2041" });
      assert.equal(asked.status, "awaiting_approval");
      if (asked.status !== "awaiting_approval") return;
      assert.equal(asked.request.reason, "invoice 2041");
      const waiting = await store.load("chat-3");
      assert.equal(waiting?.status, "running");
      assert.deepEqual(
        waiting?.waiting?.map((request) => request.digest),
        [asked.request.digest],
      );
      assert.equal(waiting?.pending?.digest, asked.request.digest);
      assert.equal((await session.call("p1", "pay", { amount: 10 })).status, "awaiting_approval");
      assert.equal(ran.pay, undefined);
      await assertSessionAgrees(store, "chat-3");
      await store.answer("chat-3", Approval.grant(asked.request.digest, "noor"));
      assert.deepEqual(await session.call("p1", "pay", { amount: 10 }), { status: "executed", result: { paid: 10 } });
      assert.deepEqual(await session.call("p1", "pay", { amount: 10 }), { status: "executed", result: { paid: 10 } });
      assert.equal(ran.pay, 1);
      const after = await store.load("chat-3");
      assert.equal(after?.waiting, undefined);
      assert.equal(after?.pending, undefined);
      await assertSessionAgrees(store, "chat-3");
    }));

  test("the same call id with another tool or other arguments is refused with call_mismatch and changes nothing", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store);
      const session = await gate.session("chat-4");
      await session.call("c1", "lookup", { topic: "a" });
      const before = await store.load("chat-4");
      await assert.rejects(
        session.call("c1", "lookup", { topic: "b" }),
        (error) => isLeashError(error, "call_mismatch") && error instanceof StateError,
      );
      await assert.rejects(session.needsApproval("c1", "pay", { amount: 1 }), (error) =>
        isLeashError(error, "call_mismatch"),
      );
      const after = await store.load("chat-4");
      assert.equal(after?.revision, before?.revision);
      assert.deepEqual((await store.read("chat-4")).length, (await store.read("chat-4")).length);
      assert.deepEqual(await session.call("c1", "lookup", { topic: "a" }), {
        status: "executed",
        result: "page about a",
      });
    }));

  test("needsApproval records a request once, and call of that id finds it", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-5");
      assert.equal(await session.needsApproval("r1", "lookup", { topic: "x" }), false);
      assert.equal(await session.needsApproval("bad", "pay", { amount: "ten" }), false);
      const recordsBefore = (await store.read("chat-5")).length;
      assert.equal(recordsBefore, 1);
      assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), true);
      assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), true);
      const requested = (await store.read("chat-5")).filter((record) => record.event === "approval_requested");
      assert.equal(requested.length, 1);
      const answer = await session.call("p1", "pay", { amount: 5 });
      assert.equal(answer.status, "awaiting_approval");
      if (answer.status !== "awaiting_approval") return;
      await store.answer("chat-5", Approval.grant(answer.request.digest, "noor"));
      assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), true);
      assert.deepEqual(await session.call("p1", "pay", { amount: 5 }), { status: "executed", result: { paid: 5 } });
      assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), true);
      assert.equal(ran.pay, 1);
      assert.equal(ran.lookup, undefined);
      await assertSessionAgrees(store, "chat-5");
    }));

  test("a denial recorded with store.answer refuses the call with approval_denied", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-6");
      const asked = await session.call("p1", "pay", { amount: 10 });
      if (asked.status !== "awaiting_approval") assert.fail("expected a request");
      await store.answer("chat-6", Approval.deny(asked.request.digest, "noor", "too much"));
      const refused = await session.call("p1", "pay", { amount: 10 });
      assert.equal(refused.status === "refused" && refused.outcome, "approval_denied");
      assert.equal(ran.pay, undefined);
      await assertSessionAgrees(store, "chat-6");
    }));

  test("end completes the session and a write the policy refuses is effect_denied", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store, { policy: new Policy() });
      const session = await gate.session("chat-7");
      const denied = await session.call("p1", "pay", { amount: 1 });
      assert.equal(denied.status === "refused" && denied.outcome, "effect_denied");
      const ended = await session.end("done");
      assert.equal(ended.status, "completed");
      assert.equal(ended.answer, "done");
      await assert.rejects(session.call("p2", "lookup", { topic: "x" }), (error) => isLeashError(error, "run_ended"));
      await assertSessionAgrees(store, "chat-7");
    }));
}
