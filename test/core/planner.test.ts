import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, tool, verifyAudit } from "../../src/index.js";

const noop = tool({ name: "noop", execute: () => "ok" });

test("a planner that throws fails the run with planner_failed", async () => {
  const agent = new Agent({
    tools: [noop],
    planner: () => {
      throw new Error("the model is down");
    },
  });
  const state = await agent.run("x");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "planner_failed");
  assert.match(state.failure?.message ?? "", /the model is down/);
  assert.deepEqual(verifyAudit(agent.audit.records), []);
});

for (const [label, junk] of [
  ["null", null],
  ["a string", "finish"],
  ["an unknown type", { type: "maybe" }],
  ["an act without a tool name", { type: "act", args: {} }],
  ["arguments that are not JSON", { type: "act", tool: "noop", args: { when: new Date() } }],
  ["an answer that is not JSON", { type: "finish", answer: Number.NaN }],
  ["a negative usage", { type: "finish", answer: 1, usage: { tokens: -1, cost: 0 } }],
] as const) {
  test(`a planner that returns ${label} fails the run with invalid_decision`, async () => {
    const agent = new Agent({ tools: [noop], planner: () => junk as never });
    const state = await agent.run("x");
    assert.equal(state.status, "failed");
    assert.equal(state.failure?.code, "invalid_decision");
    assert.equal(state.steps.length, 0);
  });
}

test("state.observations() is plain JSON of every step, ready for a prompt", async () => {
  let seen: unknown;
  const agent = new Agent({
    tools: [noop],
    planner: (state) => {
      if (state.steps.length === 0) return Decision.act("noop", {});
      if (state.steps.length === 1) return Decision.act("missing", { a: 1 });
      seen = state.observations();
      return Decision.finish(null);
    },
  });
  await agent.run("x");
  assert.deepEqual(JSON.parse(JSON.stringify(seen)), seen);
  assert.deepEqual(seen, [
    { step: 0, outcome: "executed", tool: "noop", args: {}, result: "ok" },
    {
      step: 1,
      outcome: "unknown_tool",
      tool: "missing",
      args: { a: 1 },
      result: null,
      error: { code: "unknown_tool", message: "No tool named `missing`; the tools are noop." },
    },
  ]);
});

test("Decision.finish() with no answer means null", async () => {
  const agent = new Agent({ tools: [], planner: () => Decision.finish() });
  const state = await agent.run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.answer, null);
});
