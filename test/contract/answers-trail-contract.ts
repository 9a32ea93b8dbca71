// The store contract's part on recorded answers with a sink separate from the store: every answer
// recorded with `store.answer` reaches the trail as one `approval_answered` record, whatever fails or
// crashes in between (a sink that refuses a write once, a process killed after the claim), a cancel
// or a refused resume included, and never twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Agent,
  Approval,
  Decision,
  JsonlAuditSink,
  MemoryAuditSink,
  Policy,
  isLeashError,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type { AuditRecord, AuditSink, RunStore } from "../../src/index.js";
import { killHard, startFixture } from "../stores/fixture-process.js";
import { withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

/** A memory sink whose next append fails, before writing (`before`) or after writing (`after`). */
class FlakySink implements AuditSink {
  readonly inner = new MemoryAuditSink();
  failNext: "before" | "after" | undefined;
  async append(records: readonly AuditRecord[]): Promise<void> {
    const fail = this.failNext;
    this.failNext = undefined;
    if (fail === "before") throw new Error("audit service unavailable");
    this.inner.append(records);
    if (fail === "after") throw new Error("connection reset after the write");
  }
  read(runId?: string): Promise<AuditRecord[]> {
    return this.inner.read(runId);
  }
}

function payingAgent(store: RunStore, audit: AuditSink, paid: string[], mayApprove?: (who: string) => boolean): Agent {
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: {} },
    execute: () => paid.push("paid"),
  });
  return new Agent({
    tools: [pay],
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("pay", {}) : Decision.finish(state.steps[0]?.outcome ?? null),
    policy: new Policy({
      allowEffects: ["read", "write"],
      ...(mayApprove === undefined ? {} : { mayApprove: (approver: string) => mayApprove(approver) }),
    }),
    store,
    audit,
  });
}

function answered(records: readonly AuditRecord[]): string[] {
  return records
    .filter((record) => record.event === "approval_answered")
    .map((record) => (record.data as { approver: string }).approver);
}

/** The tests of recorded answers beside a separate sink, defined inside the caller's `describe`. */
export function answersTrailContract(makeStore: MakeStore): void {
  for (const fail of ["before", "after"] as const) {
    test(`with a separate sink that fails ${fail} writing the claim's records, the resume is refused with audit_failed and a later resume audits every recorded answer once`, () =>
      withStore(makeStore, async (store) => {
        const sink = new FlakySink();
        const paid: string[] = [];
        const agent = payingAgent(store, sink, paid);
        const runId = `flaky-${fail}`;
        const paused = await agent.run("pay", { runId });
        const digest = paused.pending!.digest;
        await store.answer(runId, Approval.grant(digest, "allen", "ok by me"));
        await store.answer(runId, Approval.grant(digest, "carl"));
        sink.failNext = fail;
        await assert.rejects(agent.resume(runId), (error) => isLeashError(error, "audit_failed"));
        const kept = await store.load(runId);
        if (fail === "before") {
          assert.deepEqual(
            kept?.answers.map((answer) => [answer.approver, answer.audited ?? false]),
            [
              ["allen", false],
              ["carl", false],
            ],
          );
        }
        const done = await payingAgent(store, sink, paid).resume(runId);
        assert.equal(done.status, "completed");
        assert.deepEqual(paid, ["paid"]);
        const trail = await sink.read(runId);
        assert.deepEqual(answered(trail).sort(), ["allen", "carl"]);
        assert.deepEqual(verifyAudit(trail), []);
      }));
  }

  test("with a separate sink, cancelling a paused run audits its recorded answers once", () =>
    withStore(makeStore, async (store) => {
      const sink = new MemoryAuditSink();
      const paid: string[] = [];
      const agent = payingAgent(store, sink, paid);
      const paused = await agent.run("pay", { runId: "cancelled" });
      const digest = paused.pending!.digest;
      await store.answer("cancelled", Approval.deny(digest, "bea", "no way"));
      await store.answer("cancelled", Approval.grant(digest, "allen"));
      const ended = await agent.cancel("cancelled");
      assert.equal(ended.status, "stopped");
      assert.deepEqual(paid, []);
      const trail = await sink.read("cancelled");
      assert.deepEqual(answered(trail), ["bea", "allen"]);
      assert.deepEqual(verifyAudit(trail), []);
    }));

  test("with a separate sink, a resume refused with approver_not_allowed audits the recorded answers once, and they still count later", () =>
    withStore(makeStore, async (store) => {
      const sink = new MemoryAuditSink();
      const paid: string[] = [];
      const agent = payingAgent(store, sink, paid, (who) => who === "boss");
      const paused = await agent.run("pay", { runId: "refused" });
      const digest = paused.pending!.digest;
      await store.answer("refused", Approval.grant(digest, "mallory"));
      for (let i = 0; i < 2; i++) {
        await assert.rejects(agent.resume("refused"), (error) => isLeashError(error, "approver_not_allowed"));
        const trail = await sink.read("refused");
        assert.deepEqual(answered(trail), ["mallory"]);
        assert.equal(
          (trail.find((record) => record.event === "approval_answered")?.data as { accepted: boolean }).accepted,
          false,
        );
      }
      await store.answer("refused", Approval.grant(digest, "boss"));
      const done = await agent.resume("refused");
      assert.equal(done.status, "completed");
      assert.deepEqual(paid, ["paid"]);
      const trail = await sink.read("refused");
      assert.deepEqual(answered(trail), ["mallory", "boss"]);
      assert.deepEqual(verifyAudit(trail), []);
    }));

  for (const moment of ["before", "after"] as const) {
    test(`a resumer killed (SIGKILL) ${moment} its claim's records reach a separate JSONL sink leaves every recorded answer to be audited once by the recovery`, () =>
      withStore(makeStore, async (store, _raw, child) => {
        if (child === undefined) return;
        const folder = mkdtempSync(join(tmpdir(), "leash-answers-"));
        try {
          const trailPath = join(folder, "trail.jsonl");
          const runId = `killed-${moment}`;
          const first = new JsonlAuditSink(trailPath);
          const paid: string[] = [];
          const paused = await payingAgent(store, first, paid).run("pay", { runId });
          const digest = paused.pending!.digest;
          await store.answer(runId, Approval.deny(digest, "bea", "no"));
          await store.answer(runId, Approval.grant(digest, "allen"));
          await first.close();
          const resumer = startFixture(
            "stores/claim-child.ts",
            [child.kind, child.location, trailPath, runId, moment],
            child.env,
          );
          await resumer.waitFor((line) => line === `hold ${moment}`, { timeoutMs: 120_000 });
          await killHard(resumer);
          const sink = new JsonlAuditSink(trailPath);
          try {
            const done = await payingAgent(store, sink, paid).resume(runId);
            assert.equal(done.status, "completed");
            assert.deepEqual(paid, []);
            const trail = await sink.read(runId);
            assert.deepEqual(answered(trail).sort(), ["allen", "bea"]);
            assert.deepEqual(verifyAudit(trail), []);
          } finally {
            await sink.close();
          }
        } finally {
          rmSync(folder, { recursive: true, force: true });
        }
      }));
  }

  for (const follow of ["resume", "cancel"] as const) {
    test(`a resumer given a grant and killed (SIGKILL) after its claim saved the state leaves the grant to be audited by the ${follow === "resume" ? "recovery" : "cancel"}, before the call`, () =>
      withStore(makeStore, async (store, _raw, child) => {
        if (child === undefined) return;
        const folder = mkdtempSync(join(tmpdir(), "leash-given-"));
        try {
          const trailPath = join(folder, "trail.jsonl");
          const runId = `given-${follow}`;
          const first = new JsonlAuditSink(trailPath);
          const paid: string[] = [];
          const paused = await payingAgent(store, first, paid).run("pay", { runId });
          await first.close();
          const resumer = startFixture(
            "stores/claim-child.ts",
            [child.kind, child.location, trailPath, runId, "before", "carol"],
            child.env,
          );
          await resumer.waitFor((line) => line === "hold before", { timeoutMs: 120_000 });
          await killHard(resumer);
          const sink = new JsonlAuditSink(trailPath);
          try {
            const agent = payingAgent(store, sink, paid);
            const done = follow === "resume" ? await agent.resume(runId) : await agent.cancel(runId);
            assert.equal(done.status, follow === "resume" ? "completed" : "stopped");
            assert.deepEqual(paid, follow === "resume" ? ["paid"] : []);
            const trail = await sink.read(runId);
            const answers = trail.filter((record) => record.event === "approval_answered");
            assert.equal(answers.length, 1);
            const data = answers[0]!.data as Record<string, unknown>;
            assert.equal(data.approver, "carol");
            assert.equal(data.accepted, true);
            assert.equal(data.granted, true);
            assert.equal(data.digest, paused.pending!.digest);
            assert.equal(data.recovered, true);
            const started = trail.findIndex((record) => record.event === "tool_started");
            if (started >= 0) assert.ok(trail.indexOf(answers[0]!) < started);
            assert.deepEqual(verifyAudit(trail), []);
          } finally {
            await sink.close();
          }
        } finally {
          rmSync(folder, { recursive: true, force: true });
        }
      }));
  }
}
