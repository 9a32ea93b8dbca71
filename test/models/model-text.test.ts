import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, modelPlanner, tool } from "../../src/index.js";
import type { Json, ModelClient, ModelResponse } from "../../src/index.js";

const none = { inputTokens: 0, outputTokens: 0 };
const echo = tool({ name: "echo", parameters: { type: "object" }, execute: (args) => args });

/** A model that answers the given responses in turn, then "done". */
function answers(...responses: ModelResponse[]): ModelClient {
  let call = 0;
  return {
    name: "odd",
    generate: async () => responses[call++] ?? { calls: [], text: "done", usage: none },
  };
}

function nested(depth: number): Json {
  let value: Json = "leaf";
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

test("text and arguments with lone surrogates are carried repaired, and the run goes on", async () => {
  const model = answers({
    calls: [{ id: "c\ud800", tool: "echo", args: { t: "half \udc00 pair", ["k\ud800"]: 1 } }],
    text: "thinking \ud83d",
    usage: none,
  });
  const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "executed");
  assert.deepEqual(state.steps[0]?.result, { t: "half \ufffd pair", ["k\ufffd"]: 1 });
  assert.equal(state.steps[0]?.decision.callId, "c\ufffd");
  assert.equal(state.steps[0]?.decision.type === "act" ? state.steps[0].decision.reason : "", "thinking \ufffd");
});

test("arguments nested deeper than a step carries are a refused step the model is told of, not a failed run", async () => {
  const model = answers({ calls: [{ id: "deep", tool: "echo", args: nested(400) }], usage: none });
  const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "invalid_arguments");
  assert.equal(state.steps[0]?.error?.code, "arguments_too_deep");
});

test("a model's text longer than a reason holds is cut between whole characters", async () => {
  for (const at of [9_998, 9_999, 10_000]) {
    const text = `${"a".repeat(at)}😀${"b".repeat(50)}`;
    const model = answers({ calls: [{ id: "c1", tool: "echo", args: {} }], text, usage: none });
    const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
    assert.equal(state.status, "completed", String(at));
    const reason = state.steps[0]?.decision.type === "act" ? (state.steps[0].decision.reason ?? "") : "";
    assert.ok(reason.isWellFormed() && reason.length <= 10_000, String(at));
  }
});

test("a call id as long as a gateway may make it is carried", async () => {
  const id = `call_${"x".repeat(3_000)}`;
  const model = answers({ calls: [{ id, tool: "echo", args: {} }], usage: none });
  const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.decision.callId, id);
});

test("an integer past 2^53 in a model's arguments is a refused step the model is told of, not a failed run", async () => {
  // What JSON.parse makes of a model's `{"id": 12345678901234567890}`.
  const args = JSON.parse('{"id": 12345678901234567890}') as Json;
  const model = answers({ calls: [{ id: "big", tool: "echo", args }], usage: none });
  const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "invalid_arguments");
  assert.match(state.steps[0]?.error?.message ?? "", /does not carry/);
});

test("a __proto__ key in a model's arguments stays an own key of the arguments the tool gets", async () => {
  const args = JSON.parse('{"__proto__":{"admin":true},"name":"x"}') as Json;
  const model = answers({ calls: [{ id: "p", tool: "echo", args }], usage: none });
  const state = await new Agent({ tools: [echo], planner: modelPlanner({ model }) }).run("x");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "executed");
  assert.equal(JSON.stringify(state.steps[0]?.result), '{"__proto__":{"admin":true},"name":"x"}');
});
