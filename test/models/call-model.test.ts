import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, isLeashError, tool } from "../../src/index.js";
import type { AuditRecord, Limits, ModelRequest, PlannerContext } from "../../src/index.js";
import { digestOfJson } from "../../src/json/index.js";
import { modelRequestDigest } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";
import { says, scriptedModel } from "../../src/testing/index.js";

const read = tool({ name: "read", execute: () => "page" });
const ask: ModelRequest = { system: "s", messages: [{ role: "user", content: "q" }], tools: [] };

function modelCalls(agent: Agent, runId: string): AuditRecord[] {
  return (agent.audit.records as AuditRecord[]).filter(
    (record) => record.run === runId && record.event === "model_called",
  );
}

test("a model call is charged in tokens and in cost at the price per million tokens", async () => {
  const model = scriptedModel(
    { name: "Everyday", price: { input: 1, output: 5 } },
    says.tool("read", {}, { usage: { inputTokens: 2_000, outputTokens: 400 } }),
    says.handBack("done", { usage: { inputTokens: 3_000, outputTokens: 100 } }),
  );
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
  const state = await agent.run("read");
  assert.equal(state.status, "completed");
  assert.equal(state.usage.tokens, 5_500);
  assert.ok(Math.abs(state.usage.cost - (5_000 * 1 + 500 * 5) / 1e6) < 1e-15);
});

test("each model call writes a model_called record with the model, the usage and the digests, not the text", async () => {
  const model = scriptedModel(
    { name: "Everyday", price: { input: 1, output: 5 } },
    says.handBack("secret answer", { usage: { inputTokens: 10, outputTokens: 2 } }),
  );
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
  const state = await agent.run("a secret question");
  const [record] = modelCalls(agent, state.runId);
  const data = record?.data as Record<string, unknown>;
  assert.equal(data.model, "Everyday");
  assert.deepEqual(data.usage, { inputTokens: 10, outputTokens: 2, tokens: 12, cost: (10 + 10) / 1e6 });
  assert.equal(data.requestDigest, modelRequestDigest(model.requests[0]!));
  assert.equal(
    data.responseDigest,
    digestOfJson({
      calls: [],
      usage: { inputTokens: 10, outputTokens: 2 },
      handBack: "secret answer",
      handBackId: "call_1",
    }),
  );
  assert.equal("request" in data, false);
  assert.equal("response" in data, false);
  assert.ok(!JSON.stringify(record).includes("a secret question"));
});

test("with recordModelText the model_called record carries the full request and response", async () => {
  const model = scriptedModel(says.handBack("answer"));
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }), recordModelText: true });
  const state = await agent.run("the question");
  const data = modelCalls(agent, state.runId)[0]?.data as Record<string, unknown>;
  assert.deepEqual(data.request, model.requests[0]);
  assert.deepEqual(data.response, {
    calls: [],
    handBack: "answer",
    handBackId: "call_1",
    usage: { inputTokens: 0, outputTokens: 0 },
  });
});

test("a model call is made while the spend is below the limits, even if its own usage takes it past them", async () => {
  const model = scriptedModel(
    says.tool("read", {}, { usage: { inputTokens: 900, outputTokens: 200 } }),
    says.handBack("x"),
  );
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }), limits: { maxTokens: 1_000 } });
  const state = await agent.run("read");
  // The first call went past the limit; the tool still ran, and the next model call was never made.
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_tokens");
  assert.equal(state.usage.tokens, 1_100);
  assert.equal(state.toolCalls, 1);
  assert.equal(model.requests.length, 1);
});

for (const [limits, reason] of [
  [{ maxCost: 0.001 }, "max_cost"],
  [{ maxTokens: 1_000 }, "max_tokens"],
] as [Limits, string][]) {
  test(`a model call refused because the spend reached ${reason} stops the run, even when the planner catches the error`, async () => {
    // 1,000 input tokens at 1 per million: 0.001 in money, and 1,000 tokens.
    const spender = scriptedModel(
      { price: { input: 1, output: 5 } },
      says.handBack("x", { usage: { inputTokens: 1_000, outputTokens: 0 } }),
    );
    const never = scriptedModel(says.handBack("never"));
    const caught: unknown[] = [];
    const agent = new Agent({
      tools: [read],
      limits,
      planner: async (_state, _tools, context) => {
        await context.callModel(spender, ask);
        try {
          await context.callModel(never, ask);
        } catch (error) {
          caught.push(error);
        }
        return Decision.finish("carried on anyway");
      },
    });
    const state = await agent.run("spend");
    assert.equal(state.status, "stopped");
    assert.equal(state.stopReason, reason);
    assert.equal(state.answer, undefined);
    assert.deepEqual(state.steps, []);
    assert.equal(caught.length, 1);
    assert.ok(isLeashError(caught[0], "limit_reached"));
    assert.equal(never.requests.length, 0);
  });
}

test("a planner that catches the refusal of a model call past the budget still ends the run stopped", async () => {
  const spender = scriptedModel(
    { price: { input: 1, output: 5 } },
    says.handBack("x", { usage: { inputTokens: 0, outputTokens: 10_000 } }),
  );
  const never = scriptedModel(says.handBack("never"));
  let caught: unknown;
  const agent = new Agent({
    tools: [read],
    limits: { maxCost: 0.05 },
    planner: async (_state, _tools, context) => {
      await context.callModel(spender, ask);
      try {
        await context.callModel(never, ask);
      } catch (error) {
        caught = error;
      }
      return Decision.finish("carried on anyway");
    },
  });
  const state = await agent.run("spend");
  assert.ok(isLeashError(caught, "limit_reached"));
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_cost");
  assert.equal(state.answer, undefined);
  assert.deepEqual(state.steps, []);
  assert.equal(never.requests.length, 0);
  assert.ok(Math.abs(state.usage.cost - 0.05) < 1e-12);
});

test("a decision's own usage, for model calls made outside callModel, is charged too", async () => {
  const agent = new Agent({
    tools: [read],
    limits: { maxTokens: 50 },
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("read", {}, { usage: { tokens: 60, cost: 0.01 } }) : Decision.finish("x"),
  });
  const state = await agent.run("read");
  assert.deepEqual(state.usage, { tokens: 60, cost: 0.01 });
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_tokens");
});

test("a client that is not a model is refused with invalid_option", async () => {
  let caught: unknown;
  const agent = new Agent({
    tools: [read],
    planner: async (_state, _tools, context) => {
      try {
        await context.callModel({ name: "fake" } as never, ask);
      } catch (error) {
        caught = error;
      }
      return Decision.finish("x");
    },
  });
  await agent.run("x");
  assert.ok(isLeashError(caught, "invalid_option"));
});

test("a caller asks for the full text of one model call with recordText, and only that call carries it", async () => {
  const model = scriptedModel(says.text("first"), says.text("second"));
  let calls = 0;
  const agent = new Agent({
    tools: [read],
    planner: async (_state, _tools, context) => {
      calls += 1;
      const response = await context.callModel(model, ask, { recordText: calls === 2 });
      return calls === 1 ? Decision.act("read", {}) : Decision.finish(response.text ?? null);
    },
  });
  const state = await agent.run("two calls");
  const [first, second] = modelCalls(agent, state.runId).map((record) => record.data as Record<string, unknown>);
  assert.equal(first?.request, undefined);
  assert.equal(first?.response, undefined);
  assert.deepEqual(second?.request, ask);
  assert.equal((second?.response as { text?: string }).text, "second");
  assert.equal(state.answer, "second");
});

test("parallel model calls under maxCost or maxTokens: one is made, the others are refused at once with limit_reached", async () => {
  for (const limits of [{ maxCost: 1 }, { maxTokens: 1 }] satisfies Limits[]) {
    let calls = 0;
    const client = {
      name: "one-token",
      price: { input: 1e6, output: 0 },
      generate: async () => {
        calls += 1;
        await new Promise<void>((resolve) => setImmediate(resolve));
        return { calls: [], text: "hi", usage: { inputTokens: 1, outputTokens: 0 } };
      },
    };
    let refused: unknown[] = [];
    const agent = new Agent({
      tools: [],
      planner: async (_state, _tools, context) => {
        const settled = await Promise.allSettled(Array.from({ length: 8 }, () => context.callModel(client, ask)));
        refused = settled.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
        return Decision.finish("ok");
      },
    });
    const state = await agent.run("ask in parallel", { limits });
    assert.equal(calls, 1, JSON.stringify(limits));
    assert.equal(refused.length, 7);
    assert.ok(refused.every((error) => isLeashError(error, "limit_reached")));
    assert.equal(state.usage.tokens, 1);
    // The refusals do not end the run; the planner's own finish does.
    assert.equal(state.status, "completed");
  }
});

test("under maxCost or maxTokens a planner that gives up on a hung model call is refused a second call at once and can still finish the run", async () => {
  for (const limits of [{ maxCost: 100 }, { maxTokens: 10_000 }] satisfies Limits[]) {
    let giveUp: () => void = () => undefined;
    const gaveUp = new Promise<void>((resolve) => (giveUp = resolve));
    const hung = {
      name: "hung",
      generate: () => {
        giveUp();
        return new Promise<never>(() => undefined);
      },
    };
    const fast = {
      name: "fast",
      generate: async () => ({ calls: [], text: "fast", usage: { inputTokens: 1, outputTokens: 1 } }),
    };
    let refusal: unknown;
    const agent = new Agent({
      tools: [],
      planner: async (_state, _tools, context) => {
        void context.callModel(hung, ask).catch(() => undefined);
        await gaveUp;
        try {
          await context.callModel(fast, ask);
        } catch (error) {
          refusal = error;
        }
        return Decision.finish("fallback refused");
      },
    });
    const state = await agent.run("fall back", { limits });
    assert.ok(isLeashError(refusal, "limit_reached"), JSON.stringify(limits));
    assert.match((refusal as Error).message, /one model call at a time/);
    assert.equal(state.status, "completed");
    assert.equal(state.answer, "fallback refused");
  }
});

test("under maxCost a model client that calls ctx.callModel itself is refused the inner call instead of waiting forever", async () => {
  let inner: unknown;
  let context: PlannerContext | undefined;
  const innerClient = {
    name: "inner",
    generate: async () => ({ calls: [], text: "i", usage: { inputTokens: 1, outputTokens: 1 } }),
  };
  const outer = {
    name: "outer",
    generate: async () => {
      try {
        await context!.callModel(innerClient, ask);
      } catch (error) {
        inner = error;
      }
      return { calls: [], text: "o", usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  const agent = new Agent({
    tools: [],
    limits: { maxCost: 100 },
    planner: async (_state, _tools, ctx) => {
      context = ctx;
      const response = await ctx.callModel(outer, ask);
      return Decision.finish(response.text ?? "none");
    },
  });
  const state = await agent.run("nested");
  assert.ok(isLeashError(inner, "limit_reached"));
  assert.equal(state.status, "completed");
  assert.equal(state.answer, "o");
});
