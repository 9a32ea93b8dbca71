import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, MemoryStore, modelPlanner, modelRequestDigest, tool } from "../../src/index.js";
import type { AuditRecord, ModelRequest } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";

const read = tool({ name: "read", execute: () => "page" });

function modelCalls(agent: Agent): Record<string, unknown>[] {
  return (agent.audit.records as AuditRecord[])
    .filter((record) => record.event === "model_called")
    .map((record) => record.data as Record<string, unknown>);
}

test("cache reads and writes are charged at their own prices, and every token is counted once", async () => {
  const usage = {
    inputTokens: 10_000,
    outputTokens: 2_000,
    cacheReadTokens: 6_000,
    cacheWriteTokens: 1_000,
    reasoningTokens: 500,
  };
  const model = scriptedModel(says.handBack("done", { usage }));
  const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model, price }) });
  const state = await agent.run("x");
  const cost = (3_000 * 3 + 6_000 * 0.3 + 1_000 * 3.75 + 2_000 * 15) / 1e6;
  assert.equal(state.usage.tokens, 12_000);
  assert.equal(state.usage.cost, cost);
  assert.deepEqual(modelCalls(agent)[0]?.usage, { ...usage, tokens: 12_000, cost });
});

test("a cache category the price does not name is charged at the input price, never free", async () => {
  const usage = { inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 400, cacheWriteTokens: 100 };
  const model = scriptedModel(says.handBack("done", { usage }));
  const state = await new Agent({
    tools: [read],
    planner: modelPlanner({ model, price: { input: 2, output: 10 } }),
  }).run("x");
  assert.equal(state.usage.cost, (1_000 * 2) / 1e6);
});

test("a usage that is not whole non-negative token counts fails the run with model_failed and charges nothing", async () => {
  for (const usage of [
    { inputTokens: 1.5, outputTokens: 0 },
    { inputTokens: 1, outputTokens: 0, cacheReadTokens: -1 },
    { inputTokens: 1, outputTokens: 0, reasoningTokens: "3" },
  ]) {
    const model = scriptedModel(() => ({ calls: [], text: "hi", usage: usage as never }));
    const state = await new Agent({
      tools: [read],
      planner: modelPlanner({ model, price: { input: 1, output: 1 } }),
    }).run("x");
    assert.equal(state.status, "failed", JSON.stringify(usage));
    assert.equal(state.failure?.code, "model_failed");
    assert.deepEqual(state.usage, { tokens: 0, cost: 0 });
  }
});

test("the request digest of a long conversation equals the digest of the same request rebuilt from its JSON", async () => {
  const steps = 30;
  const model = scriptedModel(...Array.from({ length: steps }, () => says.tool("read")), says.text("done"));
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
  const state = await agent.run("read a lot");
  assert.equal(state.status, "completed");
  const digests = modelCalls(agent).map((data) => data.requestDigest);
  assert.equal(digests.length, steps + 1);
  model.requests.forEach((request, index) => {
    const rebuilt = JSON.parse(JSON.stringify(request)) as ModelRequest;
    assert.equal(modelRequestDigest(rebuilt), digests[index], `request ${index}`);
  });
  // A change anywhere in the conversation changes the digest.
  const last = JSON.parse(JSON.stringify(model.requests.at(-1))) as ModelRequest;
  const before = modelRequestDigest(last);
  (last.messages[2] as { content: string }).content = "another page";
  assert.notEqual(modelRequestDigest(last), before);
});

test("text events carry the run, the step being decided and each delta, in order", async () => {
  const model = {
    name: "streamer",
    generate: async (_request: ModelRequest, options: { onText?: (delta: string) => void }) => {
      for (const delta of ["Thr", "ee ", "books."]) options.onText?.(delta);
      return { calls: [], text: "Three books.", usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
  const seen: { runId: string; step: number; delta: string }[] = [];
  agent.on("text", (event) => seen.push(event));
  const state = await agent.run("count", { runId: "count-1" });
  assert.equal(state.answer, "Three books.");
  assert.deepEqual(seen, [
    { runId: "count-1", step: 0, delta: "Thr" },
    { runId: "count-1", step: 0, delta: "ee " },
    { runId: "count-1", step: 0, delta: "books." },
  ]);
});

test("record events are the trail's records, in order, each once", async () => {
  const model = scriptedModel(says.tool("read"), says.tool("read"), says.text("done"));
  const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
  const fed: AuditRecord[] = [];
  agent.on("record", (record) => fed.push(record));
  await agent.run("x");
  assert.deepEqual(fed, agent.audit.records);
});

test("ten model calls at 0.1 each fill a budget of 1 exactly: the eleventh is not made", async () => {
  const model = scriptedModel(
    { price: { input: 1, output: 0 } },
    ...Array.from({ length: 12 }, () => says.tool("read", {}, { usage: { inputTokens: 100_000, outputTokens: 0 } })),
  );
  const state = await new Agent({ tools: [read], planner: modelPlanner({ model }), limits: { maxCost: 1 } }).run("x");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "max_cost");
  assert.equal(model.requests.length, 10);
});

test("a tool costing 0.1 runs three times under a budget of 0.3", async () => {
  const dime = tool({ name: "dime", cost: 0.1, execute: () => "paid" });
  let asked = 0;
  const agent = new Agent({
    tools: [dime],
    limits: { maxCost: 0.3 },
    planner: () => (asked++ < 5 ? { type: "act", tool: "dime", args: {} } : { type: "finish", answer: null }),
  });
  const state = await agent.run("x");
  assert.equal(state.toolCalls, 3);
  assert.equal(state.stopReason, "max_cost");
});

test("usage whose sums pass the largest safe integer is capped, and the run ends with a saved state", async () => {
  const huge = { inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: Number.MAX_SAFE_INTEGER };
  const model = scriptedModel(says.tool("read", {}, { usage: huge }), says.text("done", { usage: huge }));
  const store = new MemoryStore();
  const state = await new Agent({
    tools: [read],
    store,
    planner: modelPlanner({ model, price: { input: 1e6, output: 1e6 } }),
  }).run("x", { runId: "huge" });
  assert.equal(state.status, "completed");
  assert.equal(state.usage.tokens, Number.MAX_SAFE_INTEGER);
  assert.equal(state.usage.cost, Number.MAX_SAFE_INTEGER);
  assert.equal((await store.load("huge"))?.status, "completed");
});
