import { test } from "node:test";
import assert from "node:assert/strict";
import { Decision, trace, verifyAudit } from "../../src/index.js";
import type { AuditRecord, Json, RunState } from "../../src/index.js";
import { allowing, blocking, notebookAgent, plan } from "./guard-helpers.js";

function records(agent: { audit: { records?: unknown } }, runId: string, event?: string): AuditRecord[] {
  return (agent.audit.records as AuditRecord[]).filter(
    (record) => record.run === runId && (event === undefined || record.event === event),
  );
}

test("a beforeTool allow lets the call run", async () => {
  const { agent, written } = notebookAgent([allowing("Rules")], plan(Decision.act("write", { text: "hello" })));
  const state = await agent.run("write hello");
  assert.equal(state.status, "completed");
  assert.deepEqual(written, ["hello"]);
  assert.equal(state.steps[0]?.outcome, "executed");
  assert.deepEqual(trace(state), { said: [], ran: ["write"] });
  assert.deepEqual(records(agent, state.runId, "guard_blocked"), []);
});

test("a beforeTool block keeps the tool from running and from being counted, and says why", async () => {
  const { agent, written } = notebookAgent(
    [blocking("Rules", "beforeTool", "No shouting.")],
    plan(Decision.act("write", { text: "HELLO" })),
  );
  const state = await agent.run("write hello");
  assert.equal(state.status, "completed");
  assert.deepEqual(written, []);
  const step = state.steps[0];
  assert.equal(step?.outcome, "blocked");
  assert.equal(step?.result, null);
  assert.equal(state.toolCalls, 0);
  assert.deepEqual(trace(state), { said: ["Rules stopped write: No shouting."], ran: [] });
  const blocked = records(agent, state.runId, "guard_blocked");
  assert.equal(blocked.length, 1);
  assert.deepEqual(blocked[0]?.data, {
    step: 0,
    point: "beforeTool",
    guard: "Rules",
    why: "No shouting.",
    tool: "write",
  });
  assert.deepEqual(records(agent, state.runId, "tool_started"), []);
  // The planner is told the call was blocked, and why.
  const told = state.answer as { outcome: string; error: { message: string } }[];
  assert.equal(told[0]?.outcome, "blocked");
  assert.match(told[0]?.error.message ?? "", /No shouting\./);
  assert.deepEqual(verifyAudit(agent.audit.records as never), []);
});

test("an afterTool allow hands the result to the planner", async () => {
  const { agent } = notebookAgent([allowing("Rules")], plan(Decision.act("peek")));
  const state = await agent.run("read the notebook");
  assert.equal(state.steps[0]?.outcome, "executed");
  assert.equal(state.steps[0]?.result, "The code is 4711.");
});

test("an afterTool block counts the call but keeps its result from the planner, the saved state and the trail", async () => {
  let seen: RunState | undefined;
  const { agent, peeks } = notebookAgent([blocking("Rules", "afterTool", "Codes stay here.")], (state) => {
    if (state.steps.length === 0) return Decision.act("peek");
    seen = state;
    return Decision.finish(state.observations());
  });
  const state = await agent.run("read the notebook");
  assert.equal(state.status, "completed");
  assert.deepEqual(peeks, ["peek"]);
  assert.equal(state.toolCalls, 1);
  assert.deepEqual(trace(state), {
    said: ["Rules kept what peek answered from the model: Codes stay here."],
    ran: ["peek"],
  });
  assert.equal(state.steps[0]?.outcome, "withheld");
  assert.equal(state.steps[0]?.result, null);
  // The planner is told why, not what.
  const observation = seen?.observations()[0] as Record<string, Json>;
  assert.equal(observation.outcome, "withheld");
  assert.equal(observation.result, null);
  assert.deepEqual(observation.error, { code: "withheld", message: "Rules: Codes stay here." });
  assert.ok(!JSON.stringify(state.toJSON()).includes("4711"));
  assert.ok(!JSON.stringify(agent.audit.records).includes("4711"));
  const blocked = records(agent, state.runId, "guard_blocked");
  assert.deepEqual(blocked[0]?.data, {
    step: 0,
    point: "afterTool",
    guard: "Rules",
    why: "Codes stay here.",
    tool: "peek",
  });
  assert.deepEqual(verifyAudit(agent.audit.records as never), []);
});

test("guards are told the agent and the task, and the person only when the run has one", async () => {
  const works: unknown[] = [];
  const guard = { name: "Watcher", beforeTool: (work: unknown) => (works.push(work), { type: "allow" as const }) };
  const { agent } = notebookAgent([guard], plan(Decision.act("peek")));
  const alone = await agent.run("read");
  const asMia = await agent.run("read", { principal: "mia" });
  assert.deepEqual(works, [
    { agent: "Scribe", task: alone.runId },
    { agent: "Scribe", task: asMia.runId, person: "mia" },
  ]);
});
