// Whatever a tool, planner, guard, approver or done criterion throws or returns, the run ends with a
// code and a saved state: never `running`, never a raw TypeError out of `run`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, LeashError, MemoryStore, Policy, tool, verifyAudit } from "../../src/index.js";
import type { AgentOptions, Planner, RunState, RunStore } from "../../src/index.js";

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function errorWithThrowingMessage(): Error {
  const error = new Error("hidden");
  Object.defineProperty(error, "message", {
    get() {
      throw new TypeError("no message for you");
    },
  });
  return error;
}

const callThenFinish: Planner = (state) =>
  state.steps.length === 0 ? Decision.act("call", {}) : Decision.finish(state.steps[0]?.outcome ?? null);

function throwingTool(thrown: () => unknown) {
  return tool({
    name: "call",
    parameters: { type: "object", properties: {} },
    execute: () => {
      throw thrown();
    },
  });
}

/** Runs an agent on a store and checks the run ended, the saved state is the returned one, and the trail holds. */
async function endsSaved(options: Omit<AgentOptions, "store" | "audit">, runId: string): Promise<RunState> {
  const store = new MemoryStore();
  const agent = new Agent({ ...options, store, audit: store });
  const state = await agent.run("do it", { runId });
  assert.notEqual(state.status, "running");
  assert.notEqual(state.status, "awaiting_approval");
  const loaded = await store.load(runId);
  assert.deepEqual(loaded?.toJSON(), state.toJSON());
  const trail = await store.read(runId);
  assert.deepEqual(verifyAudit(trail), []);
  assert.equal(trail.at(-1)?.event, "run_ended");
  for (const step of state.steps) assert.notEqual(step.outcome, null);
  return state;
}

for (const [what, thrown] of [
  ["a revoked Proxy", revokedProxy],
  ["an Error whose message getter throws", errorWithThrowingMessage],
  ["an Error whose message is a Symbol", () => Object.assign(new Error("x"), { message: Symbol("odd") })],
  [
    "an object whose toJSON and toString throw",
    () => ({
      toJSON() {
        throw new Error("no JSON");
      },
      toString() {
        throw new Error("no text");
      },
    }),
  ],
] as const) {
  test(`a tool that throws ${what} ends the step or the run with a code, saved`, async () => {
    const state = await endsSaved({ tools: [throwingTool(thrown)], planner: callThenFinish }, "odd-tool");
    assert.ok(
      state.status === "failed" ? state.failure?.code === "internal_error" : state.steps[0]?.outcome === "tool_error",
      `status ${state.status}, step ${state.steps[0]?.outcome}`,
    );
  });

  test(`a planner that throws ${what} fails the run, saved`, async () => {
    const state = await endsSaved(
      {
        tools: [],
        planner: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- odd thrown values are the point
          throw thrown();
        },
      },
      "odd-planner",
    );
    assert.equal(state.status, "failed");
  });

  test(`a done criterion that throws ${what} fails the run, saved`, async () => {
    const state = await endsSaved(
      {
        tools: [],
        planner: () => Decision.finish("ok"),
        done: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- odd thrown values are the point
          throw thrown();
        },
      },
      "odd-done",
    );
    assert.equal(state.status, "failed");
  });

  test(`an approver that throws ${what} leaves the run paused or ended, saved`, async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      tools: [tool({ name: "call", effect: "write", parameters: { type: "object" }, execute: () => "x" })],
      planner: callThenFinish,
      policy: new Policy({ allowEffects: ["read", "write"] }),
      approver: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- odd thrown values are the point
        throw thrown();
      },
      store,
      audit: store,
    });
    const state = await agent.run("do it", { runId: "odd-approver" });
    assert.notEqual(state.status, "running");
    assert.deepEqual((await store.load("odd-approver"))?.toJSON(), state.toJSON());
  });
}

test("a done criterion that returns a Proxy fails the run (done_failed), saved", async () => {
  const state = await endsSaved(
    { tools: [], planner: () => Decision.finish("ok"), done: () => revokedProxy() as never },
    "proxy-done",
  );
  assert.equal(state.status, "failed");
});

test("a guard whose verdict is a revoked Proxy fails the run, saved", async () => {
  const state = await endsSaved(
    {
      tools: [tool({ name: "call", parameters: { type: "object" }, execute: () => "x" })],
      planner: callThenFinish,
      guards: [{ name: "odd", beforeTool: () => revokedProxy() as never }],
    },
    "proxy-guard",
  );
  assert.equal(state.status, "failed");
});

test("a tool that returns a revoked Proxy ends its step with a code, saved", async () => {
  const store = new MemoryStore();
  let calls = 0;
  const odd = tool({
    name: "call",
    parameters: { type: "object", properties: {} },
    execute: () => {
      calls += 1;
      return revokedProxy();
    },
  });
  const agent = new Agent({ tools: [odd], planner: callThenFinish, store, audit: store });
  const state = await agent.run("do it", { runId: "internal" });
  assert.equal(calls, 1);
  assert.notEqual(state.status, "running");
  assert.deepEqual((await store.load("internal"))?.toJSON(), state.toJSON());
});

test("when the checkpoint that ends a broken run fails too, run rejects with a LeashError, never a raw error", async () => {
  const inner = new MemoryStore();
  let failSaves = false;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === "save" && typeof value === "function") {
        return (...args: unknown[]) => {
          if (failSaves) throw new TypeError("the database went away");
          return (value as (...rest: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  }) as unknown as MemoryStore & RunStore;
  const agent = new Agent({
    tools: [
      tool({
        name: "call",
        parameters: { type: "object", properties: {} },
        execute: () => {
          failSaves = true;
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- odd thrown values are the point
          throw revokedProxy();
        },
      }),
    ],
    planner: callThenFinish,
    store,
    audit: store,
  });
  await assert.rejects(agent.run("do it", { runId: "store-down" }), (error: unknown) => {
    assert.ok(error instanceof LeashError, `rejected with ${String(error)}`);
    return true;
  });
});

test("text that is not well-formed UTF-16 (a decision's reason, a guard's why, a tool's error) never leaves a run running", async () => {
  const lone = "bad \uD800 text";
  const cases: Omit<AgentOptions, "store" | "audit">[] = [
    {
      tools: [tool({ name: "call", parameters: { type: "object" }, execute: () => "x" })],
      planner: (state) =>
        state.steps.length === 0 ? Decision.act("call", {}, { reason: lone }) : Decision.finish("ok"),
    },
    {
      tools: [tool({ name: "call", parameters: { type: "object" }, execute: () => "x" })],
      planner: callThenFinish,
      guards: [{ name: "odd", beforeTool: () => ({ type: "block", why: lone }) }],
    },
    { tools: [throwingTool(() => new Error(lone))], planner: callThenFinish },
  ];
  for (const [index, options] of cases.entries()) await endsSaved(options, `lone-${index}`);
});
