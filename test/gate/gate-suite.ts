// What a gate's session does on every store: the same suite runs on MemoryStore, SqliteStore and
// PostgresStore (gate-*.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  Policy,
  RunState,
  StateError,
  isLeashError,
  stateAgreesWithTrail,
  verifyAudit,
} from "../../src/index.js";
import type { GateCallAnswer, RunStoreWithAudit } from "../../src/index.js";
import { Worker } from "../../src/worker/index.js";
import { gateTools, paymentGate } from "./gate-fixtures.js";

/** The request of an answer that waits for a person; fails the test otherwise. */
function requestOf(answer: GateCallAnswer): { digest: string; step: number } {
  if (answer.status !== "awaiting_approval") assert.fail(`expected a request, got ${JSON.stringify(answer)}`);
  return answer.request;
}

/** Changes a stored state behind leash's back, as someone with write access to the store could. */
async function forge(
  store: RunStoreWithAudit,
  runId: string,
  change: (json: ReturnType<RunState["toJSON"]>) => void,
): Promise<void> {
  const state = await store.load(runId);
  assert.ok(state !== null);
  const json = state.toJSON();
  change(json);
  json.revision = state.revision + 1;
  await store.save(RunState.fromJSON(json), { expectedRevision: state.revision });
}

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

  test("a waiting call runs once a standing grant given later matches it, and under a quorum of two once two givers' grants do", () =>
    withStore(async (store) => {
      const grants = store as RunStoreWithAudit & Required<Pick<RunStoreWithAudit, "grant" | "grants">>;
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-grant");
      assert.equal((await session.call("p1", "pay", { amount: 3 })).status, "awaiting_approval");
      await grants.grant({ tool: "pay", maxUses: 5, by: "noor" });
      assert.deepEqual(await session.call("p1", "pay", { amount: 3 }), { status: "executed", result: { paid: 3 } });
      assert.deepEqual(await session.call("p1", "pay", { amount: 3 }), { status: "executed", result: { paid: 3 } });
      assert.equal(ran.pay, 1);
      assert.equal((await grants.grants())[0]?.uses, 1);
      await assertSessionAgrees(store, "chat-grant");

      const pair = paymentGate(store, { policy: new Policy({ allowEffects: ["read", "write"], quorum: () => 2 }) });
      const pairSession = await pair.gate.session("chat-quorum");
      assert.equal((await pairSession.call("q1", "pay", { amount: 4 })).status, "awaiting_approval");
      // One giver's grant is short of the quorum: the call still waits, and no use is taken.
      assert.equal((await pairSession.call("q1", "pay", { amount: 4 })).status, "awaiting_approval");
      await grants.grant({ tool: "pay", maxUses: 5, by: "sam" });
      assert.deepEqual(await pairSession.call("q1", "pay", { amount: 4 }), {
        status: "executed",
        result: { paid: 4 },
      });
      assert.equal(pair.ran.pay, 1);
      assert.deepEqual(
        (await grants.grants()).map((grant) => [grant.by, grant.uses]),
        [
          ["noor", 2],
          ["sam", 1],
        ],
      );
      await assertSessionAgrees(store, "chat-quorum");
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

  test("several calls wait at once, oldest first, and answers in any order run each once; other calls run meanwhile", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-8");
      const first = requestOf(await session.call("p1", "pay", { amount: 1 }));
      assert.deepEqual(await session.call("r1", "lookup", { topic: "a" }), {
        status: "executed",
        result: "page about a",
      });
      const second = requestOf(await session.call("p2", "pay", { amount: 2 }));
      const third = requestOf(await session.call("p3", "pay", { amount: 3 }));
      const waiting = await store.load("chat-8");
      assert.deepEqual(
        waiting?.waiting?.map((request) => request.digest),
        [first.digest, second.digest, third.digest],
      );
      assert.equal(waiting?.pending?.digest, first.digest);
      assert.equal(waiting?.status, "running");
      await assertSessionAgrees(store, "chat-8");
      // The newest first: its history names the older calls as open, as they were when it was asked.
      await store.answer("chat-8", Approval.grant(third.digest, "noor"));
      assert.deepEqual(await session.call("p3", "pay", { amount: 3 }), { status: "executed", result: { paid: 3 } });
      await store.answer("chat-8", Approval.deny(first.digest, "noor"));
      const denied = await session.call("p1", "pay", { amount: 1 });
      assert.equal(denied.status === "refused" && denied.outcome, "approval_denied");
      const middle = await store.load("chat-8");
      assert.deepEqual(
        middle?.waiting?.map((request) => request.digest),
        [second.digest],
      );
      assert.equal(middle?.pending?.digest, second.digest);
      await assertSessionAgrees(store, "chat-8");
      await store.answer("chat-8", Approval.grant(second.digest, "mia"));
      assert.deepEqual(await session.call("p2", "pay", { amount: 2 }), { status: "executed", result: { paid: 2 } });
      assert.deepEqual(ran, { pay: 2, lookup: 1 });
      const after = await store.load("chat-8");
      assert.equal(after?.waiting, undefined);
      assert.equal(after?.pending, undefined);
      await assert.rejects(store.answer("chat-8", Approval.grant(second.digest, "mia")), (error) =>
        isLeashError(error, "stale_state"),
      );
      await assertSessionAgrees(store, "chat-8");
    }));

  test("arguments of a waiting call edited in the store make its approval stale, and the call does not run", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-9");
      await session.call("r1", "lookup", { topic: "a" });
      const asked = requestOf(await session.call("p1", "pay", { amount: 10 }));
      await forge(store, "chat-9", (json) => {
        (json.steps[1]!.decision as { args: unknown }).args = { amount: 1000 };
      });
      await store.answer("chat-9", Approval.grant(asked.digest, "noor"));
      await assert.rejects(session.call("p1", "pay", { amount: 10 }), (error) => isLeashError(error, "call_mismatch"));
      const stale = await session.call("p1", "pay", { amount: 1000 });
      assert.equal(stale.status === "refused" && stale.outcome, "approval_stale");
      assert.equal(ran.pay, undefined);
    }));

  test("a forged list of the calls open at the request makes the approval stale", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-10");
      await session.call("r1", "lookup", { topic: "a" });
      const asked = requestOf(await session.call("p1", "pay", { amount: 10 }));
      await forge(store, "chat-10", (json) => {
        json.steps[1]!.openAtRequest = [0];
      });
      await store.answer("chat-10", Approval.grant(asked.digest, "noor"));
      const stale = await session.call("p1", "pay", { amount: 10 });
      assert.equal(stale.status === "refused" && stale.outcome, "approval_stale");
      assert.equal(ran.pay, undefined);
    }));

  test("a charge that takes the spend to maxCost ends the session stopped, and later calls say so", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store, { limits: { maxCost: 1, maxTokens: 10_000 } });
      const session = await gate.session("chat-11");
      assert.throws(
        () => session.charge({ tokens: -1, cost: 0 }),
        (error) => isLeashError(error, "invalid_option"),
      );
      assert.throws(
        () => session.charge({ tokens: 1, cost: Number.NaN }),
        (error) => isLeashError(error, "invalid_option"),
      );
      assert.throws(
        () => session.charge({ tokens: 1, cost: 0, extra: 1 } as never),
        (error) => isLeashError(error, "invalid_option"),
      );
      assert.deepEqual(await session.charge({ tokens: 100, cost: 0.4, model: "small" }), {
        status: "charged",
        usage: { tokens: 100, cost: 0.4 },
      });
      assert.deepEqual(await session.call("r1", "lookup", { topic: "a" }), {
        status: "executed",
        result: "page about a",
      });
      assert.deepEqual(await session.charge({ tokens: 100, cost: 0.6 }), { status: "stopped", reason: "max_cost" });
      assert.deepEqual(await session.call("r2", "lookup", { topic: "b" }), { status: "stopped", reason: "max_cost" });
      assert.equal(ran.lookup, 1);
      const state = await store.load("chat-11");
      assert.equal(state?.status, "stopped");
      assert.deepEqual(state?.usage, { tokens: 200, cost: 1 });
      await assertSessionAgrees(store, "chat-11");
    }));

  test("maxToolCalls stops the call past it and ends the session stopped; a waiting call is closed", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store, { limits: { maxToolCalls: 1 } });
      const session = await gate.session("chat-12");
      requestOf(await session.call("p1", "pay", { amount: 1 }));
      await session.call("r1", "lookup", { topic: "a" });
      assert.deepEqual(await session.call("r2", "lookup", { topic: "b" }), {
        status: "stopped",
        reason: "max_tool_calls",
      });
      assert.deepEqual(await session.call("p1", "pay", { amount: 1 }), { status: "stopped", reason: "max_tool_calls" });
      const state = await store.load("chat-12");
      assert.equal(state?.status, "stopped");
      assert.equal(state?.waiting, undefined);
      assert.deepEqual(
        state?.steps.map((step) => step.outcome),
        ["stopped", "executed", "stopped"],
      );
      assert.equal(ran.lookup, 1);
      await assertSessionAgrees(store, "chat-12");
    }));

  test("a guard that throws fails the session with guard_failed; a guard that blocks refuses the call", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store, {
        guards: [
          {
            name: "Shop rules",
            beforeTool: (_work, described, args) => {
              if (described.name === "broken") throw new Error("the guard broke");
              return (args as { topic?: string }).topic === "keys"
                ? { type: "block", why: "Keys stay in the shop." }
                : { type: "allow" };
            },
          },
        ],
      });
      const session = await gate.session("chat-13");
      const blocked = await session.call("r1", "lookup", { topic: "keys" });
      assert.deepEqual(blocked, {
        status: "refused",
        outcome: "blocked",
        message: "Shop rules: Keys stay in the shop.",
      });
      const failed = await session.call("b1", "broken", {});
      assert.equal(failed.status === "failed" && failed.failure.code, "guard_failed");
      assert.equal((await store.load("chat-13"))?.status, "failed");
      assert.equal((await session.call("r2", "lookup", { topic: "a" })).status, "failed");
      await assertSessionAgrees(store, "chat-13");
    }));

  test("end closes the calls still waiting, and no answer can run them afterwards", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-14");
      const asked = requestOf(await session.call("p1", "pay", { amount: 1 }));
      const ended = await session.end();
      assert.equal(ended.status, "completed");
      assert.equal(ended.steps[0]?.outcome, "stopped");
      await assert.rejects(store.answer("chat-14", Approval.grant(asked.digest, "noor")), (error) =>
        isLeashError(error, "stale_state"),
      );
      await assert.rejects(session.call("p1", "pay", { amount: 1 }), (error) => isLeashError(error, "run_ended"));
      assert.equal((await session.end()).status, "completed");
      assert.equal(ran.pay, undefined);
      await assertSessionAgrees(store, "chat-14");
    }));

  test("the same run id opens the same session in another gate, and a run of an agent is not a session", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store);
      const session = await gate.session("chat-15", { principal: "mia" });
      const asked = requestOf(await session.call("p1", "pay", { amount: 1 }));
      const other = paymentGate(store);
      const again = await other.gate.session("chat-15");
      assert.equal(again.state.principal, "mia");
      await store.answer("chat-15", Approval.grant(asked.digest, "noor"));
      assert.deepEqual(await again.call("p1", "pay", { amount: 1 }), { status: "executed", result: { paid: 1 } });
      assert.equal(other.ran.pay, 1);
      const agent = new Agent({ tools: gateTools().tools, planner: () => Decision.finish("ok"), store });
      await agent.run("a run of an agent", { runId: "agent-run" });
      await assert.rejects(gate.session("agent-run"), (error) => isLeashError(error, "run_exists"));
      await assert.rejects(gate.session("bad id"), (error) => isLeashError(error, "invalid_option"));
    }));

  test("agent.resume and a worker leave a gate's session alone", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store);
      const session = await gate.session("chat-16");
      await session.call("r1", "lookup", { topic: "a" });
      requestOf(await session.call("p1", "pay", { amount: 1 }));
      const before = await store.load("chat-16");
      const agent = new Agent({ tools: gateTools().tools, planner: () => Decision.finish("ok"), store });
      await assert.rejects(agent.resume("chat-16"), (error) => isLeashError(error, "invalid_state"));
      const worker = new Worker({ agent, store, pollMs: 10 });
      assert.equal(await worker.runOnce(), 0);
      const after = await store.load("chat-16");
      assert.equal(after?.revision, before?.revision);
      assert.equal(after?.status, "running");
    }));

  test("a call of one session in another gate saved while a tool ran keeps both calls' ends", () =>
    withStore(async (store) => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const slow = gateTools();
      const { Gate, tool } = await import("../../src/index.js");
      const waits = tool({
        name: "waits",
        execute: async () => {
          started();
          await released;
          return "waited";
        },
      });
      const first = new Gate({ tools: [...slow.tools, waits], store });
      const second = paymentGate(store);
      const one = await first.session("chat-17");
      const other = await second.gate.session("chat-17");
      const pendingCall = one.call("w1", "waits", {});
      await running;
      assert.deepEqual(await other.call("r1", "lookup", { topic: "a" }), {
        status: "executed",
        result: "page about a",
      });
      release();
      assert.deepEqual(await pendingCall, { status: "executed", result: "waited" });
      const state = await store.load("chat-17");
      assert.deepEqual(
        state?.steps.map((step) => [step.outcome, step.result]),
        [
          ["executed", "waited"],
          ["executed", "page about a"],
        ],
      );
      assert.equal(state?.toolCalls, 2);
      await assertSessionAgrees(store, "chat-17");
    }));

  test("end of a session that stopped or failed is refused with run_ended and writes nothing", () =>
    withStore(async (store) => {
      const { gate } = paymentGate(store, { limits: { maxTokens: 10 } });
      const session = await gate.session("chat-20");
      const charged = await session.charge({ tokens: 10, cost: 0 });
      assert.equal(charged.status, "stopped");
      const before = await store.read("chat-20");
      await assert.rejects(session.end("done"), (error) => isLeashError(error, "run_ended"));
      const state = await store.load("chat-20");
      assert.equal(state?.status, "stopped");
      assert.equal((await store.read("chat-20")).length, before.length);
      assert.equal((await store.read("chat-20")).filter((record) => record.event === "run_ended").length, 1);
      await assertSessionAgrees(store, "chat-20");
    }));

  test("a waiting call approved after a later call ran keeps the session's state in agreement with its trail", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-21");
      const first = requestOf(await session.call("p1", "pay", { amount: 3 }));
      assert.equal((await session.call("l1", "lookup", { topic: "x" })).status, "executed");
      const second = requestOf(await session.call("p2", "pay", { amount: 4 }));
      assert.equal((await session.call("l2", "lookup", { topic: "y" })).status, "executed");
      await store.answer("chat-21", Approval.grant(second.digest, "noor"));
      assert.equal((await session.call("p2", "pay", { amount: 4 })).status, "executed");
      await store.answer("chat-21", Approval.grant(first.digest, "noor"));
      assert.equal((await session.call("p1", "pay", { amount: 3 })).status, "executed");
      assert.equal(ran.pay, 2);
      assert.deepEqual((await store.load("chat-21"))?.ran, ["pay", "lookup", "pay", "lookup"]);
      await assertSessionAgrees(store, "chat-21");
    }));

  test("an answer recorded for a call the session's end closed leaves nothing behind that disagrees with the trail", () =>
    withStore(async (store) => {
      const { gate, ran } = paymentGate(store);
      const session = await gate.session("chat-22");
      const asked = requestOf(await session.call("p1", "pay", { amount: 5 }));
      await store.answer("chat-22", Approval.grant(asked.digest, "noor"));
      const ended = await session.end();
      assert.equal(ended.status, "completed");
      assert.deepEqual((await store.load("chat-22"))?.answers, []);
      assert.equal(ran.pay, undefined);
      await assertSessionAgrees(store, "chat-22");
    }));

  test("two session objects of one run in one gate never run one call twice, even while it is running", () =>
    withStore(async (store) => {
      const { Gate, tool } = await import("../../src/index.js");
      let runs = 0;
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const slow = tool({
        name: "slow",
        idempotent: true,
        execute: async () => {
          runs += 1;
          started();
          await released;
          return "done";
        },
      });
      const gate = new Gate({ tools: [slow], store });
      const one = await gate.session("chat-23");
      const two = await gate.session("chat-23");
      const first = one.call("s1", "slow", {});
      await running;
      const second = two.call("s1", "slow", {});
      // The tool stays in flight while the second object's call gets every chance to go ahead of it
      // (a store's load and save of the memory store settle within these turns).
      for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      release();
      assert.deepEqual(await first, { status: "executed", result: "done" });
      assert.deepEqual(await second, { status: "executed", result: "done" });
      assert.equal(runs, 1);
      assert.deepEqual(one.tools.names(), ["slow"]);
      await assertSessionAgrees(store, "chat-23");
    }));
}
