import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  MemoryAuditSink,
  MemoryStore,
  Policy,
  isLeashError,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type { Planner, RunState } from "../../src/index.js";

// A crash is simulated in one process: the first agent's tool never returns (as if the process died
// mid-call), and a second agent on the same store resumes the run. Real SIGKILL tests live with the
// durable stores.

const planner: Planner = (state) =>
  state.steps.length === 0 ? Decision.act("call", { n: 1 }) : Decision.finish(state.steps[0]?.outcome);

function hangingTool(options: { idempotent: boolean; effect?: "read" | "write" }, started: () => void, keys: string[]) {
  return tool({
    name: "call",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    effect: options.effect ?? "read",
    idempotent: options.idempotent,
    execute: (_args, context) => {
      keys.push(context.idempotencyKey);
      started();
      return new Promise(() => undefined);
    },
  });
}

async function crashMidCall(store: MemoryStore, options: { idempotent: boolean }, keys: string[]): Promise<string> {
  let started: () => void = () => undefined;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const first = new Agent({ tools: [hangingTool(options, started, keys)], planner, store });
  void first.run("call once", { runId: "crashy" });
  await inFlight;
  return "crashy";
}

test("the saved state records a call before it starts, charged once", async () => {
  const store = new MemoryStore();
  const runId = await crashMidCall(store, { idempotent: false }, []);
  const saved = (await store.load(runId)) as RunState;
  assert.equal(saved.status, "running");
  assert.equal(saved.steps[0]?.outcome, null);
  assert.equal(saved.steps[0]?.starts, 1);
  assert.equal(saved.toolCalls, 1);
});

test("at resume a non-idempotent call in flight is not repeated: its step is interrupted", async () => {
  const store = new MemoryStore();
  const keys: string[] = [];
  const runId = await crashMidCall(store, { idempotent: false }, keys);
  let ranAgain = 0;
  const again = tool({
    name: "call",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    idempotent: false,
    execute: () => ++ranAgain,
  });
  const second = new Agent({ tools: [again], planner, store });
  const state = await second.resume(runId);
  assert.equal(ranAgain, 0);
  assert.equal(state.steps[0]?.outcome, "interrupted");
  assert.equal(state.answer, "interrupted");
  assert.equal(state.toolCalls, 1);
  assert.deepEqual(verifyAudit(store.records), []);
  const ended = store.records.filter((record) => record.event === "tool_ended");
  assert.equal(ended.length, 1);
});

test("at resume an idempotent call in flight starts again with the same idempotency key, not charged again", async () => {
  const store = new MemoryStore();
  const keys: string[] = [];
  const runId = await crashMidCall(store, { idempotent: true }, keys);
  const again = tool({
    name: "call",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    cost: 0,
    execute: (_args, context) => {
      keys.push(context.idempotencyKey);
      return "done";
    },
  });
  const second = new Agent({ tools: [again], planner, store });
  const state = await second.resume(runId);
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "executed");
  assert.equal(state.steps[0]?.starts, 2);
  assert.equal(state.toolCalls, 1);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1]);
  assert.deepEqual(verifyAudit(store.records), []);
});

test("an idempotent call gets at most three starts in all; at the next resume its step is interrupted", async () => {
  const store = new MemoryStore();
  const keys: string[] = [];
  const runId = await crashMidCall(store, { idempotent: true }, keys);
  for (let start = 2; start <= 3; start++) {
    let started: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    void new Agent({ tools: [hangingTool({ idempotent: true }, started, keys)], planner, store }).resume(runId);
    await inFlight;
  }
  let fourth = 0;
  const last = tool({ name: "call", parameters: { type: "object" }, execute: () => ++fourth });
  const state = await new Agent({ tools: [last], planner, store }).resume(runId);
  assert.equal(fourth, 0);
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 1);
  assert.equal(state.steps[0]?.outcome, "interrupted");
  assert.deepEqual(verifyAudit(store.records), []);
});

test("an approved write in flight at a crash is interrupted at resume, never run twice", async () => {
  const store = new MemoryStore();
  const keys: string[] = [];
  let started: () => void = () => undefined;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const first = new Agent({
    tools: [hangingTool({ idempotent: false, effect: "write" }, started, keys)],
    planner,
    policy,
    store,
  });
  const paused = await first.run("write", { runId: "approved-crash" });
  void first.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
  await inFlight;
  let again = 0;
  const write = tool({ name: "call", parameters: { type: "object" }, effect: "write", execute: () => ++again });
  const state = await new Agent({ tools: [write], planner, policy, store }).resume(paused.runId);
  assert.equal(again, 0);
  assert.equal(state.steps[0]?.outcome, "interrupted");
  assert.equal(keys.length, 1);
});

test("a resume whose trail lacks the state's head record is refused (audit_truncated)", async () => {
  const store = new MemoryStore();
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const save = tool({ name: "save", effect: "write", execute: () => "saved" });
  const writer: Planner = (state) => (state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish("ok"));
  const agent = new Agent({ tools: [save], planner: writer, policy, store });
  const paused = await agent.run("save");
  // The trail is cut after its last record: a copy of the state with every record but the last.
  const { MemoryAuditSink } = await import("../../src/index.js");
  const cut = new MemoryAuditSink();
  const records = store.records.filter((record) => record.run === paused.runId);
  cut.append(records.slice(0, -1));
  assert.deepEqual(verifyAudit(cut.records), [], "the chain alone cannot show the cut");
  const resumer = new Agent({ tools: [save], planner: writer, policy, audit: cut });
  await assert.rejects(
    resumer.resume(paused, { approvals: [Approval.grant(paused.pending!.digest, "allen")] }),
    (error) => isLeashError(error, "audit_truncated"),
  );
});

test("a crash after an approved call's claim is durable, before the call, runs the call once at resume", async () => {
  // A store that loses power at one chosen save: the process stops there, as a crash would.
  class PowerCut extends MemoryStore {
    saves = 0;
    cutAt = Number.POSITIVE_INFINITY;
    override save(...args: Parameters<MemoryStore["save"]>): Promise<void> {
      this.saves += 1;
      if (this.saves === this.cutAt) return Promise.reject(new Error("power lost"));
      return super.save(...args);
    }
  }
  const store = new PowerCut();
  const written: string[] = [];
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const save = tool({ name: "save", effect: "write", execute: () => written.push("the report") });
  const writer: Planner = (state) => (state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish("ok"));
  const first = new Agent({ tools: [save], planner: writer, policy, store });
  const paused = await first.run("save");
  // The claim is the next save; the one after it would make the call's intent durable.
  store.cutAt = store.saves + 2;
  await assert.rejects(
    first.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] }),
    /power lost/,
  );
  assert.deepEqual(written, []);
  const claimed = (await store.load(paused.runId)) as RunState;
  assert.equal(claimed.status, "running");
  assert.equal(claimed.steps[0]?.approval?.approver, "allen");

  const second = new Agent({ tools: [save], planner: writer, policy, store });
  const done = await second.resume(paused.runId);
  assert.equal(done.status, "completed");
  assert.equal(done.steps[0]?.outcome, "executed");
  assert.deepEqual(written, ["the report"]);
  assert.deepEqual(verifyAudit(store.records), []);
});

/** A run whose process died after its trail said the saved call never started, and before its state did. */
async function crashWithdrawn() {
  const store = new MemoryStore();
  const audit = new MemoryAuditSink();
  let calls = 0;
  const call = tool({
    name: "call",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    idempotent: true,
    cost: 7,
    execute: () => {
      calls += 1;
      return "done";
    },
  });
  let cancelled = false;
  let dead = false;
  // The first process: a cancel lands while the intent is saved, then the process dies after the
  // trail took the end of the run and before the state did.
  const dying = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === "save") {
        return (state: RunState, options: unknown) => {
          if (dead) return Promise.reject(new Error("the process died"));
          if (!cancelled && state.steps[0]?.starts === 1) {
            cancelled = true;
            dead = true;
            first.cancel("withdrawn").catch(() => undefined);
          }
          return target.save(state, options as never);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const first = new Agent({ tools: [call], planner, store: dying, audit });
  await first.run("call once", { runId: "withdrawn" }).catch(() => undefined);
  assert.equal(calls, 0);
  const saved = await store.load("withdrawn");
  assert.equal(saved?.status, "running");
  assert.equal(saved?.steps[0]?.starts, 1);
  const ended = (await audit.read("withdrawn")).find((record) => record.event === "tool_ended");
  assert.equal((ended?.data as { outcome?: string }).outcome, "stopped");

  return { store, audit, call, calls: () => calls };
}

test("a crash after the trail said a saved call never started (tool_ended stopped) does not start it at resume", async () => {
  const { store, audit, call, calls } = await crashWithdrawn();
  const state = await new Agent({ tools: [call], planner, store, audit }).resume("withdrawn");
  assert.equal(calls(), 0);
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.steps[0]?.outcome, "stopped");
  assert.equal(state.toolCalls, 0);
});

test("a cancel of a crashed run whose trail said the saved call never started takes the call back once, with no second record", async () => {
  const { store, audit, call, calls } = await crashWithdrawn();
  const state = await new Agent({ tools: [call], planner, store, audit }).cancel("withdrawn");
  assert.equal(calls(), 0);
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.steps[0]?.outcome, "stopped");
  assert.equal(state.toolCalls, 0);
  assert.equal(state.usage.cost, 0);
  const trail = await audit.read("withdrawn");
  const ends = trail.filter((record) => record.event === "tool_ended");
  assert.deepEqual(
    ends.map((record) => (record.data as { outcome?: string }).outcome),
    ["stopped"],
  );
  for (const record of trail.filter((item) => item.event === "run_ended")) {
    assert.equal((record.data as { usage: { cost: number } }).usage.cost, 0);
  }
  assert.deepEqual(verifyAudit(trail), []);
});
