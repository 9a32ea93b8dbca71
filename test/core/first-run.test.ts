import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Policy, verifyAudit, trace } from "../../src/index.js";
import { lookupPlanner, lookupTool } from "./helpers.js";

test("the first run completes with the page as its answer and a trail that verifies", async () => {
  const agent = new Agent({
    tools: [lookupTool()],
    planner: lookupPlanner,
    policy: new Policy({ grantedScopes: ["docs:read"] }),
    limits: { maxSteps: 4, maxToolCalls: 2 },
  });
  const state = await agent.run("what is a chunk's text?");
  assert.equal(state.status, "completed");
  assert.equal(state.answer, "A chunk's text is a slice of its source.");
  assert.deepEqual(verifyAudit(agent.audit.records), []);
  assert.deepEqual(
    state.steps.map((step) => step.outcome),
    ["executed", "finished"],
  );
  assert.equal(state.toolCalls, 1);
  assert.deepEqual(trace(state).ran, ["lookup"]);
});

test("without the scope the run completes too, but its first step is scope_denied and the tool never runs", async () => {
  const calls: string[] = [];
  const agent = new Agent({
    tools: [lookupTool(calls)],
    planner: lookupPlanner,
    limits: { maxSteps: 4, maxToolCalls: 2 },
  });
  const state = await agent.run("what is a chunk's text?");
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "scope_denied");
  assert.equal(state.steps[0]?.result, null);
  assert.deepEqual(calls, []);
  assert.equal(state.toolCalls, 0);
  assert.deepEqual(verifyAudit(agent.audit.records), []);
});

test("new Policy() allows read tools that need no scope, and nothing else", () => {
  const policy = new Policy();
  assert.equal(policy.allowsEffect("read"), true);
  assert.equal(policy.allowsEffect("write"), false);
  assert.equal(policy.allowsEffect("external"), false);
  assert.deepEqual(policy.missingScopes([]), []);
  assert.deepEqual(policy.missingScopes(["docs:read"]), ["docs:read"]);
});

test("every tool call has a tool_started record before it and a tool_ended record after", async () => {
  const agent = new Agent({
    tools: [lookupTool()],
    planner: lookupPlanner,
    policy: new Policy({ grantedScopes: ["docs:read"] }),
  });
  const state = await agent.run("what is a chunk's text?");
  const events = (agent.audit.records ?? []).filter((r) => r.run === state.runId).map((r) => r.event);
  assert.deepEqual(events, [
    "run_started",
    "decision_made",
    "tool_started",
    "tool_ended",
    "decision_made",
    "run_ended",
  ]);
  assert.equal(state.auditHead?.seq, events.length - 1);
});

test("a planner's copy of the state can be changed freely without changing the run", async () => {
  const agent = new Agent({
    tools: [lookupTool()],
    policy: new Policy({ grantedScopes: ["docs:read"] }),
    planner: (state) => {
      const last = state.steps.at(-1);
      if (last === undefined) return { type: "act", tool: "lookup", args: { topic: "spans" } };
      last.result = "tampered";
      state.steps.push(last);
      state.goal = "something else";
      state.usage.cost = 999;
      return { type: "finish", answer: state.observations() };
    },
  });
  const state = await agent.run("what is a chunk's text?");
  assert.equal(state.status, "completed");
  assert.equal(state.goal, "what is a chunk's text?");
  assert.equal(state.steps[0]?.result, "A chunk's text is a slice of its source.");
  assert.equal(state.usage.cost, 0);
  assert.equal(state.steps.length, 2);
});
