import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, Policy, isLeashError, tool, verifyAudit } from "../../src/index.js";
import { scriptedModel, says } from "../../src/testing/index.js";
import type { Planner } from "../../src/index.js";
import { manualClock } from "./helpers.js";

const counter = (calls: number[], cost = 0) =>
  tool({
    name: "tick",
    cost,
    execute: () => {
      calls.push(calls.length);
      return calls.length;
    },
  });
const forever: Planner = () => Decision.act("tick", {});

test("max_steps stops the run before the planner is asked past the limit", async () => {
  let asked = 0;
  const agent = new Agent({
    tools: [counter([])],
    planner: () => {
      asked += 1;
      return Decision.act("tick", {});
    },
    limits: { maxSteps: 3 },
  });
  const state = await agent.run("tick forever");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_steps");
  assert.equal(state.steps.length, 3);
  assert.equal(asked, 3);
});

test("max_tool_calls keeps the next call from starting; that step's outcome is stopped", async () => {
  const calls: number[] = [];
  const agent = new Agent({ tools: [counter(calls)], planner: forever, limits: { maxToolCalls: 2 } });
  const state = await agent.run("tick forever");
  assert.equal(state.stopReason, "max_tool_calls");
  assert.equal(calls.length, 2);
  assert.equal(state.toolCalls, 2);
  assert.equal(state.steps.at(-1)?.outcome, "stopped");
});

test("max_cost refuses a call whose declared cost would take the spend past the limit", async () => {
  const calls: number[] = [];
  const agent = new Agent({ tools: [counter(calls, 1)], planner: forever, limits: { maxCost: 2.5 } });
  const state = await agent.run("tick forever");
  assert.equal(state.stopReason, "max_cost");
  assert.equal(calls.length, 2);
  assert.equal(state.usage.cost, 2);
});

test("max_tokens stops the run once decisions' usage reaches it", async () => {
  const agent = new Agent({
    tools: [counter([])],
    planner: () => Decision.act("tick", {}, { usage: { tokens: 40, cost: 0.001 } }),
    limits: { maxTokens: 100 },
  });
  const state = await agent.run("tick forever");
  assert.equal(state.stopReason, "max_tokens");
  assert.equal(state.usage.tokens, 120);
  assert.equal(state.steps.length, 3);
});

test("max_duration counts running time from the agent's clock", async () => {
  const time = manualClock();
  const agent = new Agent({
    tools: [counter([])],
    clock: time.clock,
    planner: () => {
      time.advance(400);
      return Decision.act("tick", {});
    },
    limits: { maxDurationMs: 1000 },
  });
  const state = await agent.run("tick forever");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_duration");
  assert.ok(state.elapsedMs >= 1000);
});

test("time spent waiting for a person does not count against max_duration", async () => {
  const time = manualClock();
  const writes: string[] = [];
  const save = tool({ name: "save", effect: "write", execute: () => writes.push("x") });
  const agent = new Agent({
    tools: [save],
    clock: time.clock,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("save", {}) : Decision.finish("ok")),
    limits: { maxDurationMs: 1000 },
  });
  const paused = await agent.run("save");
  time.advance(3_600_000);
  const { Approval } = await import("../../src/index.js");
  const done = await agent.resume(paused, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
  assert.equal(done.status, "completed");
  assert.deepEqual(writes, ["x"]);
});

test("agent.cancel stops a running run before its next call and aborts the tool's signal", async () => {
  let aborted = false;
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  const slow = tool({
    name: "slow",
    execute: (_args, context) =>
      new Promise((resolve) => {
        started();
        context.signal.addEventListener("abort", () => {
          aborted = true;
          resolve("gave up");
        });
      }),
  });
  const agent = new Agent({ tools: [slow], planner: () => Decision.act("slow", {}) });
  const run = agent.run("wait", { runId: "to-cancel" });
  await running;
  const cancelled = await agent.cancel("to-cancel");
  const state = await run;
  assert.equal(aborted, true);
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(cancelled.runId, "to-cancel");
  assert.deepEqual(verifyAudit(agent.audit.records), []);
});

test("a run's AbortSignal cancels it", async () => {
  const controller = new AbortController();
  const calls: number[] = [];
  const agent = new Agent({
    tools: [counter(calls)],
    planner: () => {
      if (calls.length === 2) controller.abort();
      return Decision.act("tick", {});
    },
  });
  const state = await agent.run("tick", { signal: controller.signal });
  assert.equal(state.stopReason, "cancelled");
  assert.equal(calls.length, 2);
});

test("a tool's timeoutMs bounds one call: outcome timed_out and its signal aborted", async () => {
  let signalAborted = false;
  const hang = tool({
    name: "hang",
    timeoutMs: 30,
    execute: (_args, context) =>
      new Promise(() => {
        context.signal.addEventListener("abort", () => (signalAborted = true));
      }),
  });
  const agent = new Agent({
    tools: [hang],
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("hang", {}) : Decision.finish(state.steps[0]?.outcome),
  });
  const state = await agent.run("hang");
  assert.equal(state.steps[0]?.outcome, "timed_out");
  assert.equal(state.answer, "timed_out");
  assert.equal(signalAborted, true);
});

test("limits given to run override the agent's, key by key", async () => {
  const calls: number[] = [];
  const agent = new Agent({ tools: [counter(calls)], planner: forever, limits: { maxSteps: 2, maxToolCalls: 10 } });
  const state = await agent.run("tick", { limits: { maxSteps: 5 } });
  assert.equal(state.stopReason, "max_steps");
  assert.equal(state.steps.length, 5);
  assert.deepEqual(state.limits, { maxSteps: 5, maxToolCalls: 10 });
});

test("the done criterion refuses answers; the third refusal fails the run with answer_rejected", async () => {
  let answers = 0;
  const agent = new Agent({
    tools: [],
    planner: () => Decision.finish(`answer ${++answers}`),
    done: (answer) => (answer === "answer 9" ? null : "not good enough"),
  });
  const state = await agent.run("answer well");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "answer_rejected");
  assert.equal(answers, 3);
  assert.deepEqual(
    state.steps.map((step) => step.outcome),
    ["answer_rejected", "answer_rejected", "answer_rejected"],
  );
  const refusals = (agent.audit.records ?? []).filter((record) => record.event === "answer_rejected");
  assert.equal(refusals.length, 3);
});

test("a refused answer is shown to the planner, who may answer again and complete", async () => {
  const agent = new Agent({
    tools: [],
    planner: (state) => {
      const refused = state.steps.at(-1)?.error?.message;
      return Decision.finish(refused === undefined ? 0 : 42);
    },
    done: (answer) => (answer === 42 ? null : "The answer is 42."),
    limits: { maxRejections: 0 },
  });
  const failed = await agent.run("answer");
  assert.equal(failed.failure?.code, "answer_rejected");
  const patient = new Agent({
    tools: [],
    planner: (state) => Decision.finish(state.steps.at(-1)?.error?.message === "The answer is 42." ? 42 : 0),
    done: (answer) => (answer === 42 ? null : "The answer is 42."),
  });
  const state = await patient.run("answer");
  assert.equal(state.status, "completed");
  assert.equal(state.answer, 42);
});

test("a done criterion that throws or returns junk fails the run with done_failed", async () => {
  const throwing = new Agent({
    tools: [],
    planner: () => Decision.finish("x"),
    done: () => {
      throw new Error("boom");
    },
  });
  assert.equal((await throwing.run("x")).failure?.code, "done_failed");
  const junk = new Agent({ tools: [], planner: () => Decision.finish("x"), done: () => 42 as never });
  assert.equal((await junk.run("x")).failure?.code, "done_failed");
});

test("max_cost stops a paying planner: it is not asked once its spend has passed the limit", async () => {
  let asked = 0;
  const agent = new Agent({
    tools: [counter([])],
    planner: () => {
      asked += 1;
      // Each decision names no tool: no tool call's cost check ever runs.
      return Decision.act("missing", {}, { usage: { tokens: 10, cost: 1 } });
    },
    limits: { maxCost: 1, maxSteps: 10 },
  });
  const state = await agent.run("tick forever");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_cost");
  assert.equal(asked, 1);
  assert.equal(state.usage.cost, 1);
});

test("max_cost and max_tokens refuse a model call once the spend has reached them", async () => {
  const model = scriptedModel(
    says.text("one", { usage: { inputTokens: 60, outputTokens: 40 } }),
    says.text("two", { usage: { inputTokens: 60, outputTokens: 40 } }),
  );
  let refused: unknown;
  const agent = new Agent({
    tools: [counter([])],
    planner: async (_state, _tools, context) => {
      const request = { system: "", messages: [{ role: "user" as const, content: "hi" }], tools: [] };
      await context.callModel(model, request);
      try {
        await context.callModel(model, request);
      } catch (error) {
        refused = error;
      }
      return Decision.act("tick", {});
    },
    limits: { maxTokens: 100 },
  });
  const state = await agent.run("ask twice");
  assert.equal(model.requests.length, 1);
  assert.ok(isLeashError(refused, "limit_reached"));
  assert.equal(state.stopReason, "max_tokens");
});
