// A gate with an approver callable: `session.needsApproval` asks it as `call` would, answering false
// (recording nothing) when it answers and true (the request recorded) when it leaves the call to a
// person; the `call` that follows hears the same answer, so the approver is asked once per call, and
// an answer is bound to its request's digest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Approval, MemoryStore, Policy } from "../../src/index.js";
import type { ApprovalRequest, Approver } from "../../src/index.js";
import { assertSessionAgrees } from "./gate-suite.js";
import { paymentGate } from "./gate-fixtures.js";

/** An approver that answers with `answer(request)` and keeps every request it was asked. */
function countingApprover(answer: (request: ApprovalRequest) => Approval | null) {
  const asked: ApprovalRequest[] = [];
  const approver: Approver = (request) => {
    asked.push(request);
    return answer(request);
  };
  return { approver, asked };
}

test("an approver that grants: needsApproval is false and records nothing, and the call runs, the approver asked once", async () => {
  const store = new MemoryStore();
  const { approver, asked } = countingApprover((request) => Approval.grant(request.digest, "auto", "small amount"));
  const { gate, ran } = paymentGate(store, { approver });
  const session = await gate.session("chat-a1");
  const before = await store.read("chat-a1");
  assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), false);
  assert.deepEqual(await store.read("chat-a1"), before, "needsApproval wrote nothing");
  assert.equal((await store.load("chat-a1"))?.steps.length, 0);
  assert.deepEqual(await session.call("p1", "pay", { amount: 5 }), { status: "executed", result: { paid: 5 } });
  assert.equal(asked.length, 1, "the call heard the answer needsApproval had");
  assert.equal(ran.pay, 1);
  const answered = (await store.read("chat-a1")).filter((record) => record.event === "approval_answered");
  assert.equal(answered.length, 1, "the approver's answer is in the trail once");
  assert.equal((answered[0]?.data as { approver?: string }).approver, "auto");
  await assertSessionAgrees(store, "chat-a1");
});

test("an approver that denies: needsApproval is false, and the call is refused approval_denied without asking again", async () => {
  const store = new MemoryStore();
  const { approver, asked } = countingApprover((request) => Approval.deny(request.digest, "auto", "over the limit"));
  const { gate, ran } = paymentGate(store, { approver });
  const session = await gate.session("chat-a2");
  assert.equal(await session.needsApproval("p1", "pay", { amount: 500 }), false);
  const refused = await session.call("p1", "pay", { amount: 500 });
  assert.equal(refused.status === "refused" && refused.outcome, "approval_denied");
  assert.equal(asked.length, 1);
  assert.equal(ran.pay, undefined);
  await assertSessionAgrees(store, "chat-a2");
});

test("an approver that leaves the call to a person: needsApproval is true and records the request, which a person's answer runs", async () => {
  const store = new MemoryStore();
  const { approver, asked } = countingApprover(() => null);
  const { gate, ran } = paymentGate(store, { approver });
  const session = await gate.session("chat-a3");
  assert.equal(await session.needsApproval("p1", "pay", { amount: 50 }), true);
  const waiting = (await store.load("chat-a3"))?.waiting ?? [];
  assert.equal(waiting.length, 1, "the request is recorded for a person");
  const asking = await session.call("p1", "pay", { amount: 50 });
  assert.equal(asking.status, "awaiting_approval");
  assert.equal(asked.length, 1, "the approver is not asked again while the request waits");
  await store.answer("chat-a3", Approval.grant(waiting[0]!.digest, "noor"));
  assert.deepEqual(await session.call("p1", "pay", { amount: 50 }), { status: "executed", result: { paid: 50 } });
  assert.equal(asked.length, 1);
  assert.equal(ran.pay, 1);
  await assertSessionAgrees(store, "chat-a3");
});

test("an approver's answer the policy refuses leaves the call to a person, and needsApproval says so", async () => {
  const store = new MemoryStore();
  const { approver } = countingApprover((request) => Approval.grant(request.digest, "intern"));
  const policy = new Policy({ allowEffects: ["read", "write"], mayApprove: (who) => who === "noor" });
  const { gate, ran } = paymentGate(store, { approver, policy });
  const session = await gate.session("chat-a4");
  assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), true);
  const records = await store.read("chat-a4");
  const refusedAnswer = records.find((record) => record.event === "approval_answered");
  assert.deepEqual(
    [(refusedAnswer?.data as { accepted?: boolean }).accepted, (refusedAnswer?.data as { reason?: string }).reason],
    [false, "approver_not_allowed"],
  );
  assert.equal((await store.load("chat-a4"))?.waiting?.length, 1);
  assert.equal((await session.call("p1", "pay", { amount: 5 })).status, "awaiting_approval");
  assert.equal(ran.pay, undefined);
  await assertSessionAgrees(store, "chat-a4");
});

test("an answer needsApproval heard is bound to its request's digest: once another call settles first, the approver is asked again", async () => {
  const store = new MemoryStore();
  const { approver, asked } = countingApprover((request) => Approval.grant(request.digest, "auto"));
  const { gate, ran } = paymentGate(store, { approver });
  const session = await gate.session("chat-a5");
  assert.equal(await session.needsApproval("p1", "pay", { amount: 5 }), false);
  assert.equal((await session.call("l1", "lookup", { topic: "x" })).status, "executed");
  assert.deepEqual(await session.call("p1", "pay", { amount: 5 }), { status: "executed", result: { paid: 5 } });
  assert.equal(asked.length, 2, "the request changed (another step, another history): asked again");
  assert.notEqual(asked[0]?.digest, asked[1]?.digest);
  assert.deepEqual([asked[0]?.step, asked[1]?.step], [0, 1]);
  assert.equal(ran.pay, 1);
  await assertSessionAgrees(store, "chat-a5");
});

test("a call made without needsApproval asks the approver itself, once", async () => {
  const store = new MemoryStore();
  const { approver, asked } = countingApprover((request) => Approval.grant(request.digest, "auto"));
  const { gate, ran } = paymentGate(store, { approver });
  const session = await gate.session("chat-a6");
  assert.deepEqual(await session.call("p1", "pay", { amount: 7 }), { status: "executed", result: { paid: 7 } });
  assert.deepEqual(await session.call("p1", "pay", { amount: 7 }), { status: "executed", result: { paid: 7 } });
  assert.equal(asked.length, 1);
  assert.equal(ran.pay, 1);
});

test("a standing grant: needsApproval is false, records nothing and takes no use; the call takes the use and runs", async () => {
  const store = new MemoryStore();
  await store.grant({ tool: "pay", maxUses: 2, by: "noor" });
  const { gate, ran } = paymentGate(store);
  const session = await gate.session("chat-g1");
  const before = await store.read("chat-g1");
  // A framework that asks and never calls spends nothing.
  for (const callId of ["g1", "g2", "g3", "g4"])
    assert.equal(await session.needsApproval(callId, "pay", { amount: 5 }), false);
  assert.deepEqual(await store.read("chat-g1"), before, "needsApproval wrote nothing");
  assert.equal((await store.grants())[0]?.uses, 0, "no use was taken by asking");
  assert.deepEqual(await session.call("g1", "pay", { amount: 5 }), { status: "executed", result: { paid: 5 } });
  assert.equal((await store.grants())[0]?.uses, 1);
  assert.equal(ran.pay, 1);
  const answered = (await store.read("chat-g1")).filter((record) => record.event === "approval_answered");
  assert.deepEqual(
    answered.map((record) => (record.data as { origin?: { via?: string; use?: number } }).origin),
    [{ via: "grant", grant: (await store.grants())[0]?.id, use: 1 }],
  );
  await assertSessionAgrees(store, "chat-g1");
});

test("an edit a guard refuses settles the gate call: the first call after the answer gives the refusal and nothing waits", async () => {
  const { allow, block } = await import("../../src/index.js");
  const store = new MemoryStore();
  const { gate, ran } = paymentGate(store, {
    guards: [
      {
        name: "cap",
        beforeTool: (_work, _tool, args) => ((args as { amount: number }).amount > 50 ? block("over 50") : allow()),
      },
    ],
  });
  const session = await gate.session("chat-e1");
  const asked = await session.call("e1", "pay", { amount: 6 });
  assert.equal(asked.status, "awaiting_approval");
  if (asked.status !== "awaiting_approval") return;
  await store.answer("chat-e1", Approval.edit(asked.request.digest, "noor", { amount: 99 }));
  const first = await session.call("e1", "pay", { amount: 6 });
  const second = await session.call("e1", "pay", { amount: 6 });
  assert.equal(first.status, "refused", JSON.stringify(first));
  assert.deepEqual(second, first, "the same answer each time");
  assert.equal(ran.pay, undefined, "the edited call never ran");
  assert.deepEqual((await store.load("chat-e1"))?.waiting ?? [], [], "nothing waits");
  await assertSessionAgrees(store, "chat-e1");
});
