import { test } from "node:test";
import assert from "node:assert/strict";
import { Decision, allow, block, isLeashError, trace, verifyAudit } from "../../src/index.js";
import type { AuditRecord, Guard, ModelRequest, ModelResponse } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { notebookAgent } from "./guard-helpers.js";

function events(agent: { audit: { records?: unknown } }, runId: string): string[] {
  return (agent.audit.records as AuditRecord[]).filter((record) => record.run === runId).map((record) => record.event);
}

test("a beforeModel allow sends the request, and the guard sees what is sent", async () => {
  const requests: ModelRequest[] = [];
  const guard: Guard = { name: "Rules", beforeModel: (_work, request) => (requests.push(request), allow()) };
  const model = scriptedModel(says.text("Nothing to do."));
  const { agent } = notebookAgent([guard], modelPlanner({ model, purpose: "You keep a notebook." }));
  const state = await agent.run("say hello");
  assert.equal(state.status, "completed");
  assert.equal(state.answer, "Nothing to do.");
  assert.deepEqual(requests, model.requests);
  assert.equal(requests[0]?.system, "You keep a notebook.");
});

test("a beforeModel block keeps the model from being called and fails the run with model_blocked", async () => {
  const guard: Guard = {
    name: "Rules",
    beforeModel: (_work, request) =>
      JSON.stringify(request).includes("password") ? block("No passwords go to a model.") : allow(),
  };
  const model = scriptedModel(says.text("never"));
  const { agent } = notebookAgent([guard], modelPlanner({ model }));
  const state = await agent.run("the password is hunter2");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "model_blocked");
  assert.match(state.failure?.message ?? "", /No passwords go to a model\./);
  assert.equal(model.requests.length, 0);
  assert.equal(model.remaining, 1);
  assert.deepEqual(trace(state).said, ["Rules stopped what was going to the model: No passwords go to a model."]);
  assert.deepEqual(state.steps, []);
  const blocked = (agent.audit.records as AuditRecord[]).find((record) => record.event === "guard_blocked");
  assert.deepEqual(blocked?.data, {
    step: 0,
    point: "beforeModel",
    guard: "Rules",
    why: "No passwords go to a model.",
  });
  assert.deepEqual(events(agent, state.runId), ["run_started", "guard_blocked", "run_ended"]);
  assert.deepEqual(verifyAudit(agent.audit.records as never), []);
});

test("an afterModel allow lets the answer be acted on, and the guard sees the response", async () => {
  const responses: ModelResponse[] = [];
  const guard: Guard = { name: "Rules", afterModel: (_work, response) => (responses.push(response), allow()) };
  const model = scriptedModel(says.tool("write", { text: "hello" }), says.handBack("done"));
  const { agent, written } = notebookAgent([guard], modelPlanner({ model }));
  const state = await agent.run("write hello");
  assert.equal(state.status, "completed");
  assert.deepEqual(written, ["hello"]);
  assert.deepEqual(responses[0]?.calls, [{ id: "call_1", tool: "write", args: { text: "hello" } }]);
});

test("an afterModel block keeps the answer from being acted on and fails the run with model_blocked", async () => {
  const guard: Guard = {
    name: "Rules",
    afterModel: (_work, response) =>
      response.calls.some((call) => call.tool === "write") ? block("The model may not write today.") : allow(),
  };
  const model = scriptedModel(says.tool("write", { text: "hello" }, { usage: { inputTokens: 100, outputTokens: 10 } }));
  const { agent, written } = notebookAgent([guard], modelPlanner({ model, price: { input: 1, output: 5 } }));
  const state = await agent.run("write hello");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "model_blocked");
  assert.deepEqual(written, []);
  assert.deepEqual(state.steps, []);
  // The model was called and its usage is charged, though nothing it said was acted on.
  assert.equal(model.requests.length, 1);
  assert.equal(state.usage.tokens, 110);
  assert.deepEqual(trace(state).said, [
    "Rules kept what the model said from being acted on: The model may not write today.",
  ]);
  assert.deepEqual(events(agent, state.runId), ["run_started", "model_called", "guard_blocked", "run_ended"]);
});

test("a model block ends the run even when the planner catches the error", async () => {
  let caught: unknown;
  const model = scriptedModel(says.text("never"));
  const { agent } = notebookAgent(
    [{ name: "Rules", beforeModel: () => block("Not today.") }],
    async (state, _tools, context) => {
      try {
        await context.callModel(model, { system: "", messages: [{ role: "user", content: state.goal }], tools: [] });
      } catch (error) {
        caught = error;
      }
      return Decision.finish("I carried on anyway.");
    },
  );
  const state = await agent.run("anything");
  assert.ok(isLeashError(caught, "model_blocked"));
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "model_blocked");
  assert.equal(state.answer, undefined);
  assert.deepEqual(state.steps, []);
});
