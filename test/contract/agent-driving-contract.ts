// The part of the agent contract about who drives a run: one driver at a time in one agent, a
// cancel that closes the open step, and fencing tokens that grow with every claim.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Policy, tool, verifyAudit } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";
import type { AuditSink, Planner, RunState, RunStore, ToolContext } from "../../src/index.js";
import { refusedWith, withStore, writerAgent, writerPlanner } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

const callOnce: Planner = (state) =>
  state.steps.length === 0 ? Decision.act("call", {}) : Decision.finish(state.steps[0]?.outcome ?? null);

/** A read tool whose calls wait until released; `started` resolves at each start with its context. */
function heldTool(options: { idempotent: boolean }) {
  const contexts: ToolContext[] = [];
  const waiting: ((context: ToolContext) => void)[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = tool({
    name: "call",
    parameters: { type: "object", properties: {} },
    idempotent: options.idempotent,
    execute: async (_args, context) => {
      contexts.push(context);
      waiting.shift()?.(context);
      await released;
      return "done";
    },
  });
  const nextStart = (): Promise<ToolContext> => new Promise((resolve) => waiting.push(resolve));
  return { held, contexts, nextStart, release };
}

function agentOn(store: RunStore & AuditSink, held: ReturnType<typeof heldTool>["held"]): Agent {
  return new Agent({ tools: [held], planner: callOnce, store, audit: store });
}

/**
 * The store seen through a wrapper that calls `onSave` (synchronously, before the save) whenever a
 * save carries a record of `event`: a cancel lands exactly while that checkpoint is being written.
 */
function onSaveOf<S extends RunStore & AuditSink>(store: S, event: string, onSave: () => void): S {
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === "save") {
        return (state: unknown, options?: { records?: { event: string }[] }) => {
          if (options?.records?.some((record) => record.event === event) === true) onSave();
          return (target.save as (...args: unknown[]) => unknown)(state, options);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The agent-driving tests of the store contract, defined inside the caller's `describe`. */
export function agentDrivingContract(makeStore: MakeStore): void {
  test("resume of a run the same agent is still driving is refused (stale_state) and changes nothing", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: true });
      const agent = agentOn(store, call.held);
      const started = call.nextStart();
      const running = agent.run("call once", { runId: "driven" });
      await started;
      const before = (await store.load("driven"))?.toJSON();
      const trail = await store.read("driven");
      await assert.rejects(agent.resume("driven"), (error: unknown) => {
        assert.ok(refusedWith("stale_state")(error));
        assert.match((error as Error).message, /being driven by this agent/);
        return true;
      });
      assert.deepEqual((await store.load("driven"))?.toJSON(), before);
      assert.deepEqual(await store.read("driven"), trail);
      call.release();
      const state = await running;
      assert.equal(state.status, "completed");
      assert.equal(call.contexts.length, 1);
    }));

  test("resume of a copy (an object with only toJSON) of a run the same agent is driving is refused (stale_state)", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: true });
      const agent = agentOn(store, call.held);
      const started = call.nextStart();
      const running = agent.run("call once", { runId: "driven-copy" });
      await started;
      const loaded = await store.load("driven-copy");
      assert.ok(loaded !== null);
      const copy = { toJSON: () => loaded.toJSON() } as unknown as RunState;
      await assert.rejects(agent.resume(copy), refusedWith("stale_state"));
      call.release();
      assert.equal((await running).status, "completed");
      assert.equal(call.contexts.length, 1);
    }));

  test("a cancel while a run is being started by the same agent ends it stopped (cancelled) before any call", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: true });
      call.release();
      const agent = agentOn(store, call.held);
      const running = agent.run("call once", { runId: "start-cancel" });
      const cancelled = await agent.cancel("start-cancel");
      const state = await running;
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.deepEqual(cancelled.toJSON(), state.toJSON());
      assert.equal(call.contexts.length, 0);
      assert.deepEqual(verifyAudit(await store.read("start-cancel")), []);
    }));

  test("a cancel while the same agent resumes a paused run with a grant ends it stopped; the approved call never runs", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      const paused = await agent.run("save the report", { runId: "resume-cancel" });
      assert.ok(paused.pending !== undefined);
      const resumed = agent.resume("resume-cancel", { approvals: [Approval.grant(paused.pending.digest, "allen")] });
      const cancelled = await agent.cancel("resume-cancel");
      const state = await resumed;
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.equal(cancelled.status, "stopped");
      assert.deepEqual(written, []);
      assert.equal((await store.load("resume-cancel"))?.status, "stopped");
      assert.deepEqual(verifyAudit(await store.read("resume-cancel")), []);
    }));

  test("a cancel that lands while a pause is saved ends the run stopped, and a later grant runs nothing", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      let cancelled: Promise<RunState> | undefined;
      const wrapped = onSaveOf(store, "run_paused", () => {
        cancelled ??= agent.cancel("pause-cancel");
      });
      const save = writeTextTool({ name: "save", onWrite: (text) => (written.push(text), "saved") });
      const agent = new Agent({
        tools: [save],
        planner: writerPlanner,
        policy: new Policy({ allowEffects: ["read", "write"] }),
        store: wrapped,
        audit: wrapped,
      });
      const state = await agent.run("save the report", { runId: "pause-cancel" });
      assert.ok(cancelled !== undefined);
      assert.equal((await cancelled).status, "stopped");
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.equal((await store.load("pause-cancel"))?.status, "stopped");
      const digest = (await store.read("pause-cancel")).find((record) => record.event === "approval_requested")
        ?.data as { digest?: string } | undefined;
      assert.ok(typeof digest?.digest === "string");
      await assert.rejects(
        agent.resume("pause-cancel", { approvals: [Approval.grant(digest.digest, "allen")] }),
        refusedWith("run_ended"),
      );
      assert.deepEqual(written, []);
      assert.deepEqual(verifyAudit(await store.read("pause-cancel")), []);
    }));

  test("the same run id run twice at once in one agent: one runs, the other is refused (run_exists)", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: true });
      const agent = agentOn(store, call.held);
      const first = agent.run("call once", { runId: "twice" });
      const second = agent.run("call once", { runId: "twice" });
      await assert.rejects(second, refusedWith("run_exists"));
      call.release();
      assert.equal((await first).status, "completed");
      assert.equal(call.contexts.length, 1);
      assert.deepEqual(verifyAudit(await store.read("twice")), []);
    }));

  test("cancel of a stored paused run ends its pending step stopped, with a step_denied record", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const paused = await writerAgent(store, written).run("save the report", { runId: "paused-cancel" });
      assert.equal(paused.status, "awaiting_approval");
      const state = await writerAgent(store, written).cancel("paused-cancel");
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.equal(state.steps[0]?.outcome, "stopped");
      assert.equal(state.pending, undefined);
      const trail = await store.read("paused-cancel");
      const denied = trail.find((record) => record.event === "step_denied");
      assert.deepEqual((denied?.data as { step?: number; outcome?: string }).outcome, "stopped");
      assert.equal(trail.at(-1)?.event, "run_ended");
      assert.deepEqual((await store.load("paused-cancel"))?.toJSON(), state.toJSON());
      assert.deepEqual(verifyAudit(trail), []);
      assert.deepEqual(written, []);
    }));

  test("cancel of a crashed run ends the call that started and never ended interrupted, with a tool_ended record", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: false });
      const started = call.nextStart();
      void agentOn(store, call.held).run("call once", { runId: "crashed-cancel" });
      await started;
      // Another process (the first one is "dead": its call never returns) cancels the run.
      const state = await agentOn(store, heldTool({ idempotent: false }).held).cancel("crashed-cancel");
      assert.equal(state.status, "stopped");
      assert.equal(state.steps[0]?.outcome, "interrupted");
      const trail = await store.read("crashed-cancel");
      const ended = trail.filter((record) => record.event === "tool_ended");
      assert.equal(ended.length, 1);
      assert.equal((ended[0]?.data as { outcome?: string }).outcome, "interrupted");
      assert.deepEqual((await store.load("crashed-cancel"))?.toJSON(), state.toJSON());
      assert.deepEqual(verifyAudit(trail), []);
    }));

  test("a cancel that lands while a call's intent is saved keeps the call from starting: stopped, uncharged, tool_ended stopped", () =>
    withStore(makeStore, async (store) => {
      const call = heldTool({ idempotent: false });
      call.release();
      let cancelled: Promise<unknown> | undefined;
      const wrapped = onSaveOf(store, "tool_started", () => {
        cancelled ??= agent.cancel("intent-cancel");
      });
      const priced = tool({
        name: "call",
        parameters: { type: "object", properties: {} },
        cost: 2,
        execute: (args, context) => call.held.execute(args, context),
      });
      const agent = new Agent({ tools: [priced], planner: callOnce, store: wrapped, audit: wrapped });
      const state = await agent.run("call once", { runId: "intent-cancel" });
      assert.ok(cancelled !== undefined);
      assert.equal(((await cancelled) as { status: string }).status, "stopped");
      assert.equal(call.contexts.length, 0);
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.equal(state.steps[0]?.outcome, "stopped");
      assert.equal(state.toolCalls, 0);
      assert.equal(state.usage.cost, 0);
      const trail = await store.read("intent-cancel");
      const ended = trail.filter((record) => record.event === "tool_ended");
      assert.equal(ended.length, 1);
      assert.equal((ended[0]?.data as { outcome?: string }).outcome, "stopped");
      assert.deepEqual((await store.load("intent-cancel"))?.toJSON(), state.toJSON());
      assert.deepEqual(verifyAudit(trail), []);
    }));

  test("the fencing token grows with every claim: a crash-recovery restart carries a larger token", () =>
    withStore(makeStore, async (store) => {
      const first = heldTool({ idempotent: true });
      const firstStart = first.nextStart();
      const stalledRun = agentOn(store, first.held).run("call once", { runId: "fenced" });
      const stalled = await firstStart;
      const second = heldTool({ idempotent: true });
      second.release();
      const state = await agentOn(store, second.held).resume("fenced");
      assert.equal(state.status, "completed");
      const restarted = second.contexts[0];
      assert.ok(restarted !== undefined);
      assert.equal(restarted.idempotencyKey, stalled.idempotencyKey);
      assert.ok(
        restarted.fencingToken > stalled.fencingToken,
        `restart token ${restarted.fencingToken} must exceed ${stalled.fencingToken}`,
      );
      // The stalled process's late save is refused, and its call carried the smaller token.
      first.release();
      await assert.rejects(stalledRun, refusedWith("stale_state"));
      assert.deepEqual((await store.load("fenced"))?.toJSON(), state.toJSON());
    }));

  test("a cancel that lands while the same agent's resume is refused (approver_not_allowed) still ends the run stopped", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const save = writeTextTool({
        name: "save",
        onWrite: (text) => {
          written.push(text);
          return "saved";
        },
      });
      const agent = new Agent({
        tools: [save],
        planner: writerPlanner,
        policy: new Policy({ allowEffects: ["read", "write"], mayApprove: (who) => who !== "eve" }),
        store,
        audit: store,
      });
      const paused = await agent.run("save the report", { runId: "refused-cancel" });
      assert.ok(paused.pending !== undefined);
      const resumed = agent.resume("refused-cancel", { approvals: [Approval.grant(paused.pending.digest, "eve")] });
      const cancelled = agent.cancel("refused-cancel");
      await assert.rejects(resumed, refusedWith("approver_not_allowed"));
      const state = await cancelled;
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "cancelled");
      assert.equal((await store.load("refused-cancel"))?.status, "stopped");
      assert.deepEqual(written, []);
      assert.deepEqual(verifyAudit(await store.read("refused-cancel")), []);
    }));

  test("two cancels of one paused run from the same agent both return the stopped state, ended once", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      const agent = writerAgent(store, written);
      await agent.run("save the report", { runId: "cancel-twice" });
      const [first, second] = await Promise.all([agent.cancel("cancel-twice"), agent.cancel("cancel-twice")]);
      assert.equal(first.status, "stopped");
      assert.deepEqual(second.toJSON(), first.toJSON());
      const trail = await store.read("cancel-twice");
      assert.equal(trail.filter((record) => record.event === "run_ended").length, 1);
      assert.deepEqual(verifyAudit(trail), []);
    }));

  test("a cancel from another agent that loses the claim to a cancel returns the stopped state", () =>
    withStore(makeStore, async (store) => {
      const written: string[] = [];
      await writerAgent(store, written).run("save the report", { runId: "cancel-race" });
      let reached: () => void = () => undefined;
      const atClaim = new Promise<void>((resolve) => (reached = resolve));
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The second agent's claim waits until the first agent's cancel has ended the run.
      const held = new Proxy(store, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key, target);
          if (key === "save") {
            return async (state: unknown, options?: { records?: { event: string }[] }) => {
              if (options?.records?.some((record) => record.event === "run_resumed") === true) {
                reached();
                await gate;
              }
              return (target.save as (...args: unknown[]) => unknown)(state, options);
            };
          }
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const late = writerAgent(held, written).cancel("cancel-race");
      await atClaim;
      const first = await writerAgent(store, written).cancel("cancel-race");
      release();
      const second = await late;
      assert.equal(first.status, "stopped");
      assert.deepEqual(second.toJSON(), first.toJSON());
      const trail = await store.read("cancel-race");
      assert.equal(trail.filter((record) => record.event === "run_ended").length, 1);
      assert.deepEqual(verifyAudit(trail), []);
    }));
}
