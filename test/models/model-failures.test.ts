// A model call that fails is recorded; one that hangs cannot keep a cancel from ending the run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, MemoryStore, isLeashError, verifyAudit } from "../../src/index.js";
import type { AuditRecord, ModelClient, ModelRequest } from "../../src/index.js";
import { modelRequestDigest } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";

const ask: ModelRequest = { system: "s", messages: [{ role: "user", content: "q" }], tools: [] };

function eventsOf(records: readonly AuditRecord[] | undefined, event: string): AuditRecord[] {
  return (records ?? []).filter((record) => record.event === event);
}

test("a model call whose client rejects writes a model_failed record, charges nothing, and fails the run", async () => {
  const failing: ModelClient = {
    name: "Flaky",
    price: { input: 1, output: 1 },
    generate: () => Promise.reject(new Error("503 Service Unavailable")),
  };
  const agent = new Agent({ tools: [], planner: modelPlanner({ model: failing }) });
  const state = await agent.run("ask");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "model_failed");
  assert.deepEqual(state.usage, { tokens: 0, cost: 0 });
  const [failed] = eventsOf(agent.audit.records, "model_failed");
  const data = failed?.data as Record<string, unknown> | undefined;
  assert.equal(data?.model, "Flaky");
  assert.equal(data?.code, "model_failed");
  assert.match(String(data?.message), /503 Service Unavailable/);
  assert.equal(typeof data?.requestDigest, "string");
  assert.deepEqual(eventsOf(agent.audit.records, "model_called"), []);
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
});

test("a model call whose client throws synchronously is recorded too, with the request's digest", async () => {
  const requests: unknown[] = [];
  const throwing: ModelClient = {
    name: "Broken",
    generate: (request) => {
      requests.push(request);
      throw new TypeError("client not configured");
    },
  };
  let caught: unknown;
  const agent = new Agent({
    tools: [],
    planner: async (_state, _tools, context) => {
      try {
        await context.callModel(throwing, ask);
      } catch (error) {
        caught = error;
      }
      return Decision.finish("without the model");
    },
  });
  const state = await agent.run("ask");
  assert.ok(caught instanceof Error);
  assert.equal(state.status, "completed");
  const [failed] = eventsOf(agent.audit.records, "model_failed");
  assert.equal(
    (failed?.data as { requestDigest?: string }).requestDigest,
    modelRequestDigest(requests[0] as ModelRequest),
  );
});

test("cancel resolves promptly while a planner hangs: the run is stopped, cancelled and saved", async () => {
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [],
    store,
    planner: () => {
      asked();
      return new Promise<never>(() => undefined);
    },
  });
  const running = agent.run("hang", { runId: "hung-planner" });
  await wasAsked;
  const cancelled = await agent.cancel("hung-planner");
  assert.equal(cancelled.status, "stopped");
  assert.equal(cancelled.stopReason, "cancelled");
  assert.equal((await running).status, "stopped");
  assert.deepEqual((await store.load("hung-planner"))?.toJSON(), cancelled.toJSON());
});

test("cancel resolves promptly while a model call inside callModel hangs; the call is recorded as failed", async () => {
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const hanging: ModelClient = {
    name: "Deaf",
    generate: () => {
      asked();
      return new Promise(() => undefined);
    },
  };
  const agent = new Agent({ tools: [], planner: modelPlanner({ model: hanging }) });
  const running = agent.run("hang", { runId: "hung-model" });
  await wasAsked;
  const cancelled = await agent.cancel("hung-model");
  assert.equal(cancelled.status, "stopped");
  assert.equal(cancelled.stopReason, "cancelled");
  assert.equal((await running).stopReason, "cancelled");
  assert.equal(eventsOf(agent.audit.records, "model_failed").length, 1);
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
});

test("a planner's late answer after a cancel is ignored", async () => {
  let answer: (value: Decision) => void = () => undefined;
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const agent = new Agent({
    tools: [],
    planner: () => {
      asked();
      return new Promise<Decision>((resolve) => (answer = resolve));
    },
  });
  const running = agent.run("late", { runId: "late-answer" });
  await wasAsked;
  const cancelled = await agent.cancel("late-answer");
  answer(Decision.finish("too late"));
  const state = await running;
  assert.equal(cancelled.status, "stopped");
  assert.equal(state.answer, undefined);
  assert.equal(state.steps.length, 0);
});

test("a planner that calls a model after its run was cancelled is refused and the ended run is not touched", async () => {
  let asked: () => void = () => undefined;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  let goOn: () => void = () => undefined;
  const late = new Promise<void>((resolve) => (goOn = resolve));
  let lateCall: Promise<unknown> | undefined;
  const model: ModelClient = {
    name: "Late",
    generate: () => Promise.resolve({ calls: [], text: "hi", usage: { inputTokens: 1, outputTokens: 1 } }),
  };
  const agent = new Agent({
    tools: [],
    planner: async (_state, _tools, context) => {
      asked();
      await late;
      lateCall = context.callModel(model, ask);
      await lateCall.catch(() => undefined);
      return Decision.finish("late");
    },
  });
  const running = agent.run("late", { runId: "late-model" });
  await wasAsked;
  const cancelled = await agent.cancel("late-model");
  const head = cancelled.auditHead;
  goOn();
  await running;
  while (lateCall === undefined) await new Promise((resolve) => setImmediate(resolve));
  await assert.rejects(lateCall, (error: unknown) => isLeashError(error, "limit_reached"));
  assert.deepEqual(cancelled.auditHead, head);
  assert.deepEqual(cancelled.usage, { tokens: 0, cost: 0 });
  assert.equal(agent.audit.records?.at(-1)?.event, "run_ended");
});

test("a cancel that lands inside the model call, before it returns, still leaves the call's model_failed record", async () => {
  for (const when of ["at once", "later"] as const) {
    const held: { agent?: Agent } = {};
    const model: ModelClient = {
      name: "hangs",
      generate: (_request, { signal }) => {
        const cancel = (): void => void held.agent?.cancel("cut");
        if (when === "at once") cancel();
        else setImmediate(cancel);
        // A client that ignores its signal: only the run's own race ends the call.
        void signal;
        return new Promise(() => undefined);
      },
    };
    const agent = new Agent({ tools: [], planner: modelPlanner({ model }) });
    held.agent = agent;
    const state = await agent.run("x", { runId: "cut" });
    assert.equal(state.status, "stopped", when);
    assert.equal(state.stopReason, "cancelled", when);
    const events = (agent.audit.records as AuditRecord[]).map((record) => record.event);
    assert.deepEqual(events.slice(-2), ["model_failed", "run_ended"], when);
    assert.deepEqual(verifyAudit(agent.audit.records as AuditRecord[]), [], when);
  }
});
