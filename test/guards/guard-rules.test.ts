import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Policy, allow, block, tool, trace, verifyAudit } from "../../src/index.js";
import type { AuditRecord, Guard, GuardPoint, Planner } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { allowing, blocking, notebook, notebookAgent, plan } from "./guard-helpers.js";

test("guards are asked in the order listed, and the first block decides", async () => {
  const asked: string[] = [];
  const guards = [
    allowing("First", asked),
    blocking("Second", "beforeTool", "Second says no.", asked),
    blocking("Third", "beforeTool", "Third says no.", asked),
  ];
  const { agent, written } = notebookAgent(guards, plan(Decision.act("write", { text: "hello" })));
  const state = await agent.run("write hello");
  assert.deepEqual(asked, ["First.beforeTool", "Second.beforeTool"]);
  assert.deepEqual(written, []);
  assert.deepEqual(trace(state).said, ["Second stopped write: Second says no."]);
  const blocked = (agent.audit.records as AuditRecord[]).filter((record) => record.event === "guard_blocked");
  assert.equal(blocked.length, 1);
});

test("every guard that allows is asked, in order, at every point", async () => {
  const asked: string[] = [];
  const model = scriptedModel(says.tool("peek"), says.handBack("done"));
  const { agent } = notebookAgent([allowing("A", asked), allowing("B", asked)], modelPlanner({ model }));
  const state = await agent.run("peek");
  assert.equal(state.status, "completed");
  assert.deepEqual(asked, [
    "A.beforeModel",
    "B.beforeModel",
    "A.afterModel",
    "B.afterModel",
    "A.beforeTool",
    "B.beforeTool",
    "A.afterTool",
    "B.afterTool",
    "A.beforeModel",
    "B.beforeModel",
    "A.afterModel",
    "B.afterModel",
  ]);
});

test("an async guard's verdict counts like a synchronous one", async () => {
  const { agent, written } = notebookAgent(
    [{ name: "Slow", beforeTool: async () => block("Later, maybe.") }],
    plan(Decision.act("write", { text: "x" })),
  );
  const state = await agent.run("write");
  assert.deepEqual(written, []);
  assert.deepEqual(trace(state).said, ["Slow stopped write: Later, maybe."]);
});

const points: GuardPoint[] = ["beforeModel", "afterModel", "beforeTool", "afterTool"];

for (const point of points) {
  test(`a guard that throws at ${point} fails the run with guard_failed, never a silent allow`, async () => {
    const later: string[] = [];
    const guard: Guard = {
      name: "Broken",
      [point]: () => {
        throw new Error("the rules file is missing");
      },
    };
    const model = scriptedModel(says.tool("peek"), says.handBack("done"));
    const { agent, peeks } = notebookAgent([guard, allowing("Later", later)], modelPlanner({ model }));
    const state = await agent.run("peek");
    assert.equal(state.status, "failed");
    assert.equal(state.failure?.code, "guard_failed");
    assert.match(state.failure?.message ?? "", /Broken.*the rules file is missing/);
    // No guard after the broken one decides in its place.
    assert.ok(!later.includes(`Later.${point}`));
    if (point === "beforeModel") assert.equal(model.requests.length, 0);
    if (point === "beforeModel" || point === "afterModel" || point === "beforeTool") assert.deepEqual(peeks, []);
    if (point === "afterTool") {
      assert.deepEqual(peeks, ["peek"]);
      assert.equal(state.steps[0]?.outcome, "withheld");
      assert.equal(state.steps[0]?.result, null);
      assert.ok(!JSON.stringify(state.toJSON()).includes("4711"));
    }
    assert.deepEqual(verifyAudit(agent.audit.records as never), []);
  });
}

test("a guard that answers something other than allow() or block(why) fails the run", async () => {
  const guard = { name: "Sloppy", beforeTool: () => "fine" } as unknown as Guard;
  const { agent, written } = notebookAgent([guard], plan(Decision.act("write", { text: "x" })));
  const state = await agent.run("write");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "guard_failed");
  assert.deepEqual(written, []);
});

test("guards are asked again at resume, like every gate, and a block then keeps the approved call from running", async () => {
  let strict = false;
  const guard: Guard = { name: "Rules", beforeTool: () => (strict ? block("Not after hours.") : allow()) };
  const book = notebook();
  const agent = new Agent({
    tools: [book.peek, book.write],
    planner: plan(Decision.act("write", { text: "late entry" })),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    guards: [guard],
  });
  const paused = await agent.run("write late");
  assert.equal(paused.status, "awaiting_approval");
  strict = true;
  const digest = paused.pending?.digest ?? "";
  const resumed = await agent.resume(paused, { approvals: [Approval.grant(digest, "allen")] });
  assert.equal(resumed.status, "completed");
  assert.deepEqual(book.written, []);
  assert.equal(resumed.steps[0]?.outcome, "blocked");
  assert.equal(resumed.toolCalls, 0);
  assert.deepEqual(trace(resumed), { said: ["Rules stopped write: Not after hours."], ran: [] });
  assert.deepEqual(verifyAudit(agent.audit.records as never), []);
});

test("guards that allow at resume let the approved call run once", async () => {
  const asked: string[] = [];
  const book = notebook();
  const agent = new Agent({
    tools: [book.peek, book.write],
    planner: plan(Decision.act("write", { text: "entry" })),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    guards: [allowing("Rules", asked)],
  });
  const paused = await agent.run("write");
  const resumed = await agent.resume(paused, { approvals: [Approval.grant(paused.pending?.digest ?? "", "allen")] });
  assert.equal(resumed.status, "completed");
  assert.deepEqual(book.written, ["entry"]);
  // Asked before the pause, and again at resume before the call.
  assert.deepEqual(asked, ["Rules.beforeTool", "Rules.beforeTool", "Rules.afterTool"]);
});

test("a guard is fixed when the agent is built: a hook switched off or swapped afterwards still guards every call", async () => {
  let ran = 0;
  const pay = tool({
    name: "pay",
    parameters: { type: "object", properties: {} },
    execute: () => {
      ran += 1;
      return "paid";
    },
  });
  const planner: Planner = (state) => (state.steps.length === 0 ? Decision.act("pay", {}) : Decision.finish("ok"));
  let reads = 0;
  const getter = {
    name: "no payments",
    get beforeTool() {
      reads += 1;
      return reads === 1 ? () => block("never pay") : "disabled";
    },
  };
  const plain: Guard = { name: "no payments", beforeTool: () => block("never pay") };
  const agents = [getter as unknown as Guard, plain].map(
    (guard) => new Agent({ tools: [pay], planner, guards: [guard] }),
  );
  plain.beforeTool = undefined;
  for (const agent of agents) {
    const state = await agent.run("pay");
    assert.equal(state.steps[0]?.outcome, "blocked");
  }
  assert.equal(ran, 0);
});
