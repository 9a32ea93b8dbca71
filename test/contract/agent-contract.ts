// The part of the store contract seen through a real Agent that uses the store as store and sink:
// the refusals of resume, the inbox and recorded answers, and a state and trail that agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  MemoryAuditSink,
  Policy,
  isLeashError,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type { RunState } from "../../src/index.js";
import { agentDrivingContract } from "./agent-driving-contract.js";
import { answersTrailContract } from "./answers-trail-contract.js";
import { claimRaceContract } from "./claim-race-contract.js";
import { raiseLimitContract } from "./raise-limit-contract.js";
import { startFixture } from "../stores/fixture-process.js";
import { refusedWith, withStore, writerAgent } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

/** The agent-level tests of the store contract, defined inside the caller's `describe`. */
export function agentContract(makeStore: MakeStore): void {
  agentDrivingContract(makeStore);
  answersTrailContract(makeStore);
  claimRaceContract(makeStore);
  raiseLimitContract(makeStore);

  test("an agent run on the store leaves a state and a trail that agree", () =>
    withStore(makeStore, async (store) => {
      const lookup = tool({
        name: "lookup",
        parameters: { type: "object", properties: {} },
        execute: () => "the page",
      });
      const agent = new Agent({
        tools: [lookup],
        planner: (state) =>
          state.steps.length === 0 ? Decision.act("lookup", {}) : Decision.finish(state.steps[0]?.result ?? null),
        store,
        audit: store,
      });
      const state = await agent.run("read the page", { runId: "agreeing" });
      assert.equal(state.status, "completed");
      assert.equal(state.answer, "the page");
      const loaded = await store.load("agreeing");
      assert.deepEqual(loaded?.toJSON(), state.toJSON());
      const trail = await store.read();
      assert.deepEqual(verifyAudit(trail), []);
      const last = trail.filter((record) => record.run === "agreeing").at(-1);
      assert.deepEqual(state.auditHead, { seq: last?.seq, digest: last?.digest });
      assert.ok(state.auditHead !== null);
      assert.deepEqual(verifyAudit(trail, { heads: { agreeing: state.auditHead } }), []);
      await assert.rejects(agent.run("again", { runId: "agreeing" }), refusedWith("run_exists"));
    }));

  test("a pause is in the inbox; an answer recorded with answer() is acted on by resume(runId), once", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("save the report", { runId: "inbox" });
      assert.equal(paused.status, "awaiting_approval");
      const inbox = await store.list({ status: "awaiting_approval" });
      assert.deepEqual(
        inbox.map((state) => state.pending?.digest),
        [paused.pending?.digest],
      );
      const answered = await store.answer("inbox", Approval.grant(paused.pending!.digest, "allen"));
      assert.equal(answered.revision, paused.revision + 1);
      assert.deepEqual((await store.load("inbox"))?.answers, [
        { digest: paused.pending!.digest, granted: true, approver: "allen", audited: true },
      ]);
      const done = await agent.resume("inbox");
      assert.equal(done.status, "completed");
      assert.equal(done.answer, "executed");
      assert.deepEqual(written, ["the report"]);
      assert.deepEqual(await store.list({ status: "awaiting_approval" }), []);
      assert.deepEqual(verifyAudit(await store.read()), []);
      await assert.rejects(agent.resume("inbox"), refusedWith("run_ended"));
      assert.deepEqual(written, ["the report"]);
    }));

  test("answer() is refused for another request's digest, a run not paused, and a run not stored", () =>
    withStore(makeStore, async (store) => {
      const agent = writerAgent(store, []);
      const paused = await agent.run("save the report", { runId: "asked" });
      const before = await store.load("asked");
      await assert.rejects(store.answer("asked", Approval.grant("0".repeat(64), "allen")), refusedWith("stale_state"));
      await assert.rejects(
        store.answer("nowhere", Approval.grant(paused.pending!.digest, "allen")),
        refusedWith("run_not_found"),
      );
      assert.deepEqual((await store.load("asked"))?.toJSON(), before?.toJSON());
      await agent.resume("asked", { approvals: [Approval.deny(paused.pending!.digest, "allen")] });
      await assert.rejects(
        store.answer("asked", Approval.grant(paused.pending!.digest, "allen")),
        refusedWith("stale_state"),
      );
    }));

  test("resume refuses a copy older than the stored state (stale_state) and writes nothing", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("save the report", { runId: "older" });
      const approval = Approval.grant(paused.pending!.digest, "allen");
      await store.answer("older", approval);
      const trail = await store.read("older");
      await assert.rejects(agent.resume(paused, { approvals: [approval] }), refusedWith("stale_state"));
      assert.deepEqual(await store.read("older"), trail);
      assert.deepEqual(written, []);
    }));

  test("a second resume of the same paused copy is refused, and the approved action ran once", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("save the report", { runId: "twice" });
      const approvals = [Approval.grant(paused.pending!.digest, "allen")];
      assert.equal((await agent.resume(paused, { approvals })).status, "completed");
      const trail = await store.read("twice");
      await assert.rejects(agent.resume(paused, { approvals }), refusedWith("already_resumed", "stale_state"));
      assert.deepEqual(written, ["the report"]);
      assert.deepEqual(await store.read("twice"), trail);
    }));

  test("two agents resuming one approved run at once: one runs the action, the other is refused and writes nothing", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const paused = await writerAgent(store, written).run("save the report", { runId: "race" });
      const approvals = [Approval.grant(paused.pending!.digest, "allen")];
      const results = await Promise.allSettled([
        writerAgent(store, written).resume("race", { approvals }),
        writerAgent(store, written).resume("race", { approvals }),
      ]);
      const won = results.filter((result) => result.status === "fulfilled");
      const lost = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(
        isLeashError(lost[0]?.reason, "stale_state") || isLeashError(lost[0]?.reason, "run_ended"),
        String(lost[0]?.reason),
      );
      assert.deepEqual(written, ["the report"]);
      const final = await store.load("race");
      assert.equal(final?.status, "completed");
      const trail = await store.read();
      assert.deepEqual(verifyAudit(trail), []);
      assert.deepEqual(final?.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
      assert.equal(trail.filter((record) => record.event === "run_resumed").length, 1);
    }));

  test("resume refuses a stored state whose auditHead is missing from the trail (audit_truncated)", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("save the report", { runId: "cut" });
      // The stored state points one record past the trail: as if the trail's end had been cut off.
      const ahead = (await store.load("cut")) as RunState;
      const expectedRevision = ahead.revision;
      ahead.auditHead = { seq: (ahead.auditHead?.seq ?? 0) + 1, digest: "f".repeat(64) };
      ahead.revision = expectedRevision + 1;
      await store.save(ahead, { expectedRevision });
      const trail = await store.read("cut");
      await assert.rejects(
        agent.resume("cut", { approvals: [Approval.grant(paused.pending!.digest, "allen")] }),
        refusedWith("audit_truncated"),
      );
      assert.deepEqual(written, []);
      assert.deepEqual(await store.read("cut"), trail);
      assert.equal((await store.load("cut"))?.revision, expectedRevision + 1);
    }));

  test("the store serves as a store beside a separate sink: saves carry no records", () =>
    withStore(makeStore, async (store) => {
      const sink = new MemoryAuditSink();
      const written: string[] = [];
      const save = tool({
        name: "save",
        effect: "write",
        parameters: { type: "object", properties: {} },
        execute: () => written.push("x"),
      });
      const agent = new Agent({
        tools: [save],
        planner: (state) =>
          state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish(state.steps[0]?.outcome ?? null),
        policy: new Policy({ allowEffects: ["read", "write"] }),
        store,
        audit: sink,
      });
      const paused = await agent.run("save", { runId: "apart" });
      const done = await agent.resume("apart", { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
      assert.equal(done.status, "completed");
      assert.deepEqual(written, ["x"]);
      assert.deepEqual(await store.read(), []);
      assert.deepEqual(verifyAudit(sink.records, { heads: { apart: done.auditHead! } }), []);
      assert.deepEqual((await store.load("apart"))?.toJSON(), done.toJSON());
    }));

  // ---- Recorded answers: none vanishes, every one is audited, one "no" from an allowed approver
  // stops the action (issue 8, item 2). ----

  test("every answer recorded with answer() is kept with its origin and audited at once; a denial by an allowed approver wins over every grant", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("pay 10", { runId: "answers" });
      const digest = paused.pending!.digest;
      const origin = (user: string) => ({ via: "cli", user, host: "desk" });
      await store.answer("answers", Approval.grant(digest, "allen"), { origin: origin("allen") });
      await store.answer("answers", Approval.deny(digest, "bea", "too much"), { origin: origin("bea") });
      await store.answer("answers", Approval.grant(digest, "allen"));
      const stored = await store.load("answers");
      assert.deepEqual(
        stored?.answers.map((answer) => [answer.approver, answer.granted, answer.origin?.user ?? null]),
        [
          ["allen", true, "allen"],
          ["bea", false, "bea"],
          ["allen", true, null],
        ],
      );
      const answered = (await store.read("answers")).filter((record) => record.event === "approval_answered");
      assert.deepEqual(
        answered.map((record) => {
          const data = record.data as { approver: string; granted: boolean; origin?: { host: string } };
          return [data.approver, data.granted, data.origin?.host ?? null];
        }),
        [
          ["allen", true, "desk"],
          ["bea", false, "desk"],
          ["allen", true, null],
        ],
      );
      assert.deepEqual(verifyAudit(await store.read()), []);
      const done = await agent.resume("answers");
      assert.deepEqual(written, []);
      assert.equal(done.steps[0]?.outcome, "approval_denied");
      assert.equal(done.steps[0]?.approval?.approver, "bea");
      const trail = await store.read("answers");
      assert.equal(trail.filter((record) => record.event === "approval_answered").length, 3);
      assert.deepEqual(verifyAudit(trail, { heads: { answers: done.auditHead! } }), []);
    }));

  test("an answer from someone mayApprove refuses is recorded and audited, and decides nothing", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const save = tool({
        name: "save",
        effect: "write",
        parameters: { type: "object", properties: {} },
        execute: () => written.push("saved"),
      });
      const agent = new Agent({
        tools: [save],
        planner: (state) =>
          state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish(state.steps[0]?.outcome ?? null),
        policy: new Policy({ allowEffects: ["read", "write"], mayApprove: (approver) => approver !== "mallory" }),
        store,
        audit: store,
      });
      const paused = await agent.run("save", { runId: "outsider" });
      const digest = paused.pending!.digest;
      await store.answer("outsider", Approval.deny(digest, "mallory"));
      await assert.rejects(agent.resume("outsider"), refusedWith("approver_not_allowed"));
      assert.equal((await store.load("outsider"))?.status, "awaiting_approval");
      await store.answer("outsider", Approval.grant(digest, "allen"));
      const done = await agent.resume("outsider");
      assert.equal(done.status, "completed");
      assert.deepEqual(written, ["saved"]);
      const approvers = (await store.read("outsider"))
        .filter((record) => record.event === "approval_answered")
        .map((record) => (record.data as { approver: string }).approver);
      assert.deepEqual(approvers, ["mallory", "allen"]);
    }));

  test("with a separate sink, the resume's claim audits the recorded answers in that sink", () =>
    withStore(makeStore, async (store) => {
      const sink = new MemoryAuditSink();
      const written: string[] = [];
      const save = tool({
        name: "save",
        effect: "write",
        parameters: { type: "object", properties: {} },
        execute: () => written.push("saved"),
      });
      const agent = new Agent({
        tools: [save],
        planner: (state) =>
          state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish(state.steps[0]?.outcome ?? null),
        policy: new Policy({ allowEffects: ["read", "write"] }),
        store,
        audit: sink,
      });
      const paused = await agent.run("save", { runId: "elsewhere" });
      const digest = paused.pending!.digest;
      await store.answer("elsewhere", Approval.grant(digest, "allen"), {
        origin: { via: "cli", user: "allen", host: "desk" },
      });
      await store.answer("elsewhere", Approval.deny(digest, "bea"));
      assert.deepEqual(await store.read("elsewhere"), []);
      assert.deepEqual(
        (await store.load("elsewhere"))?.answers.map((answer) => answer.audited ?? false),
        [false, false],
      );
      const done = await agent.resume("elsewhere");
      assert.deepEqual(written, []);
      assert.equal(done.steps[0]?.outcome, "approval_denied");
      const answered = sink.records.filter((record) => record.event === "approval_answered");
      assert.deepEqual(
        answered.map((record) => [
          (record.data as { approver: string }).approver,
          (record.data as { recorded?: boolean }).recorded,
        ]),
        [
          ["allen", true],
          ["bea", true],
        ],
      );
      assert.deepEqual(verifyAudit(sink.records), []);
    }));

  test("an answer that cannot be recorded (a note with a lone surrogate) is refused by answer() with not_json, and nothing is written, with or without a separate sink", () =>
    withStore(makeStore, async (store) => {
      for (const separate of [false, true]) {
        const sink = new MemoryAuditSink();
        const written: string[] = [];
        const save = tool({
          name: "save",
          effect: "write",
          parameters: { type: "object", properties: {} },
          execute: () => written.push("saved"),
        });
        const agent = new Agent({
          tools: [save],
          planner: (state) =>
            state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish(state.steps[0]?.outcome ?? null),
          policy: new Policy({ allowEffects: ["read", "write"] }),
          store,
          audit: separate ? sink : store,
        });
        const runId = separate ? "odd-apart" : "odd";
        const paused = await agent.run("save", { runId });
        const before = await store.load(runId);
        const trail = await store.read(runId);
        // The approval itself refuses such text when it is made, before any store sees it.
        await assert.rejects(
          async () => store.answer(runId, Approval.deny(paused.pending!.digest, "allen", "no \ud800")),
          refusedWith("not_json"),
        );
        await assert.rejects(
          store.answer(runId, {
            digest: paused.pending!.digest,
            granted: false,
            approver: "allen",
            note: "no \ud800",
          } as never),
          refusedWith("not_json"),
        );
        assert.deepEqual((await store.load(runId))?.toJSON(), before?.toJSON());
        assert.deepEqual(await store.read(runId), trail);
        // Given to resume itself, it is refused before the claim: the run still awaits its answer.
        await assert.rejects(
          async () =>
            agent.resume(runId, { approvals: [Approval.grant(paused.pending!.digest, "allen", "ok \udfff")] }),
          refusedWith("not_json"),
        );
        assert.equal((await store.load(runId))?.revision, before?.revision);
        const done = await agent.resume(runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
        assert.equal(done.status, "completed");
        assert.deepEqual(written, ["saved"]);
      }
    }));

  test("answers recorded at once by several processes (or callers) are all kept; the one denial stops the action", () =>
    withStore(makeStore, async (store, _raw, child) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("pay 10000", { runId: "crowd" });
      const digest = paused.pending!.digest;
      const answers = Array.from({ length: 6 }, (_, index) => ({
        approver: `person-${index}`,
        grant: index !== 3,
      }));
      if (child === undefined) {
        await Promise.all(
          answers.map(({ approver, grant }) =>
            store.answer("crowd", grant ? Approval.grant(digest, approver) : Approval.deny(digest, approver)),
          ),
        );
      } else {
        const children = answers.map(({ approver, grant }) =>
          startFixture(
            "stores/answer-child.ts",
            [child.kind, child.location, "crowd", digest, approver, grant ? "grant" : "deny"],
            child.env,
          ),
        );
        await Promise.all(children.map((process) => process.waitFor((line) => line === "ready")));
        for (const process of children) process.child.stdin.write("go\n");
        const reports = await Promise.all(
          children.map((process) => process.waitFor((line) => line.startsWith("{"), { timeoutMs: 120_000 })),
        );
        await Promise.all(children.map((process) => process.exited));
        assert.deepEqual(
          reports.map((line) => (JSON.parse(line) as { answered: boolean }).answered),
          answers.map(() => true),
          reports.join("\n"),
        );
      }
      const stored = await store.load("crowd");
      assert.deepEqual(
        stored?.answers.map((answer) => answer.approver).sort(),
        answers.map((answer) => answer.approver).sort(),
      );
      const done = await agent.resume("crowd");
      assert.deepEqual(written, []);
      assert.equal(done.steps[0]?.outcome, "approval_denied");
      assert.equal(done.steps[0]?.approval?.approver, "person-3");
      const trail = await store.read("crowd");
      assert.deepEqual(
        trail
          .filter((record) => record.event === "approval_answered")
          .map((record) => (record.data as { approver: string }).approver)
          .sort(),
        answers.map((answer) => answer.approver).sort(),
      );
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));
}
