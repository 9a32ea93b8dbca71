import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Policy, RunState, isLeashError, tool, trace } from "../../src/index.js";
import type { Guard, ModelClient, ModelMessage, ModelResponse, Skill } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { writeTextTool } from "../helpers/text-tool.js";

const none = { inputTokens: 0, outputTokens: 0 };

/** What a message says: a user's or a tool message's content; an assistant's text. */
function contentOf(message: ModelMessage | undefined): unknown {
  if (message === undefined) return undefined;
  return message.role === "assistant" ? message.text : message.content;
}

function shelf() {
  const written: string[] = [];
  const read = tool({ name: "read", description: "Read the shelf.", execute: () => "three books" });
  const write = writeTextTool({
    name: "write",
    description: "Write a label.",
    onWrite: (text) => {
      written.push(text);
      return `labelled ${text}`;
    },
  });
  const other = tool({ name: "other", description: "Not for this skill.", execute: () => "other" });
  return { tools: [read, write, other], written };
}

const alone = new Policy({ allowEffects: ["read", "write"], approvalFor: [] });

test("the request holds the purpose, the skill's description and brief, its tools, its output schema and the observations", async () => {
  const { tools } = shelf();
  const model = scriptedModel(says.tool("read"), says.handBack({ count: 3 }));
  const count: Skill<string, { count: number }> = {
    name: "CountBooks",
    description: "Count the books on a shelf.",
    tools: ["read", "write"],
    output: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
    brief: (where) => `Count the books on the ${where} shelf.`,
  };
  const agent = new Agent({
    tools,
    policy: alone,
    planner: modelPlanner({ model, purpose: "You keep a library.", maxOutputTokens: 500 }),
  });
  const outcome = await agent.do(count, "top");
  assert.equal(outcome.done, true);
  assert.deepEqual(outcome.output, { count: 3 });
  const [first, second] = model.requests;
  assert.equal(first?.system, "You keep a library.");
  assert.deepEqual(first?.messages, [
    { role: "user", content: "Count the books on a shelf.\n\nCount the books on the top shelf." },
  ]);
  assert.deepEqual(
    first?.tools.map((item) => item.name),
    ["read", "write"],
  );
  assert.deepEqual(first?.tools[0], {
    name: "read",
    description: "Read the shelf.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    effect: "read",
    scopes: [],
    cost: 0,
    idempotent: true,
  });
  assert.deepEqual(first?.output, count.output);
  assert.equal(first?.maxOutputTokens, 500);
  assert.deepEqual(second?.messages.slice(1), [
    { role: "assistant", calls: [{ id: "call_1", tool: "read", args: {} }] },
    { role: "tool", callId: "call_1", tool: "read", outcome: "executed", content: "three books" },
  ]);
  model.assertDone();
});

test("without a skill or a purpose the goal is the task and a default purpose is the system prompt", async () => {
  const { tools } = shelf();
  const model = scriptedModel(says.text("done"));
  const agent = new Agent({ tools, planner: modelPlanner({ model }) });
  await agent.run("tidy up");
  assert.deepEqual(model.requests[0]?.messages, [{ role: "user", content: "tidy up" }]);
  assert.ok((model.requests[0]?.system ?? "").length > 0);
  assert.equal("output" in (model.requests[0] ?? {}), false);
});

test("several calls in one answer become successive steps, each through every gate, without asking the model again", async () => {
  const asked: string[] = [];
  const guard: Guard = {
    name: "Rules",
    beforeTool: (_work, described, args) => {
      asked.push(described.name);
      return JSON.stringify(args).includes("rude") ? { type: "block", why: "Be polite." } : { type: "allow" };
    },
  };
  const { tools, written } = shelf();
  const model = scriptedModel(
    says.calls([
      { tool: "write", args: { text: "rude" } },
      { tool: "nowhere", args: {} },
      { tool: "read", args: {} },
      { tool: "write", args: { text: "fiction" } },
    ]),
    says.handBack("labelled"),
  );
  const agent = new Agent({ tools, policy: alone, guards: [guard], planner: modelPlanner({ model }) });
  const state = await agent.run("label the shelf");
  assert.equal(state.status, "completed");
  assert.deepEqual(
    state.steps.map((step) => step.outcome),
    ["blocked", "unknown_tool", "executed", "executed", "finished"],
  );
  assert.deepEqual(asked, ["write", "read", "write"]);
  assert.deepEqual(written, ["fiction"]);
  assert.deepEqual(trace(state).said, ["Rules stopped write: Be polite."]);
  // One model call for the four calls, one for the hand-back; the second saw every call answered.
  assert.equal(model.requests.length, 2);
  assert.deepEqual(
    model.requests[1]?.messages.map((message) => (message.role === "tool" ? [message.callId, message.outcome] : message.role)),
    [
      "user",
      "assistant",
      ["call_1", "blocked"],
      ["call_2", "unknown_tool"],
      ["call_3", "executed"],
      ["call_4", "executed"],
    ],
  );
  model.assertDone();
});

test("one planner shared by runs at the same time keeps each run's queued calls apart", async () => {
  const { tools } = shelf();
  const answer = (goal: string, observed: number): ModelResponse =>
    observed === 0
      ? {
          calls: [
            { id: "c1", tool: "read", args: {} },
            { id: "c2", tool: "write", args: { text: goal } },
          ],
          usage: none,
        }
      : { calls: [], handBack: `${goal} after ${observed} messages`, usage: none };
  const model: ModelClient = {
    name: "echo",
    generate: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return answer(String(contentOf(request.messages[0])), request.messages.length - 1);
    },
  };
  const planner = modelPlanner({ model });
  const agent = new Agent({ tools, policy: alone, planner });
  const [a, b] = await Promise.all([agent.run("alpha"), agent.run("beta")]);
  for (const [state, goal] of [
    [a, "alpha"],
    [b, "beta"],
  ] as const) {
    assert.equal(state.status, "completed");
    assert.deepEqual(
      state.steps.map((step) =>
        step.decision.type === "act" ? `${step.decision.tool} ${JSON.stringify(step.decision.args)}` : "finish",
      ),
      ["read {}", `write {"text":"${goal}"}`, "finish"],
    );
    assert.equal(state.answer, `${goal} after 3 messages`);
  }
});

test("queued calls go on after a pause in the same process", async () => {
  const { tools } = shelf();
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const model = scriptedModel(
    says.calls([
      { tool: "write", args: { text: "poetry" } },
      { tool: "read", args: {} },
    ]),
    says.handBack("ok"),
  );
  const agent = new Agent({ tools, policy, planner: modelPlanner({ model }) });
  const paused = await agent.run("label");
  assert.equal(paused.status, "awaiting_approval");
  const grant = [Approval.grant(paused.pending?.digest ?? "", "allen")];
  const resumed = await agent.resume(paused, { approvals: grant });
  assert.equal(resumed.status, "completed");
  assert.deepEqual(
    resumed.steps.map((step) => step.outcome),
    ["executed", "executed", "finished"],
  );
  assert.equal(model.requests.length, 2);
});

test("the calls not yet taken live in the saved state: a fresh planner elsewhere takes them without asking its model", async () => {
  const { tools, written } = shelf();
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const first = scriptedModel(
    says.calls([
      { tool: "write", args: { text: "prose" } },
      { tool: "read", args: {} },
    ]),
  );
  const paused = await new Agent({ tools, policy, planner: modelPlanner({ model: first }) }).run("label");
  assert.equal(paused.status, "awaiting_approval");
  // Another process: the state comes back from its saved form, and the planner is new.
  const saved = RunState.fromJSON(JSON.parse(JSON.stringify(paused.toJSON())));
  const fresh = scriptedModel(says.handBack("done elsewhere"));
  const second = new Agent({ tools, policy, planner: modelPlanner({ model: fresh }) });
  const elsewhere = await second.resume(saved, { approvals: [Approval.grant(saved.pending?.digest ?? "", "allen")] });
  assert.equal(elsewhere.status, "completed");
  assert.deepEqual(
    elsewhere.steps.map((step) => step.outcome),
    ["executed", "executed", "finished"],
  );
  // The queued read ran without a model call; the one call made saw both ids answered, in order.
  assert.equal(fresh.requests.length, 1);
  assert.deepEqual(
    fresh.requests[0]?.messages.slice(1).map((message) => (message.role === "tool" ? message.callId : message.role)),
    ["assistant", "call_1", "call_2"],
  );
  assert.equal(contentOf(fresh.requests[0]?.messages[2]), "labelled prose");
  assert.deepEqual(written, ["prose"]);
});

test("an output handed back finishes the run with it; text alone finishes with the text", async () => {
  const { tools } = shelf();
  const handed = await new Agent({
    tools,
    planner: modelPlanner({ model: scriptedModel(says.handBack({ ok: true }, { usage: none })) }),
  }).run("x");
  assert.equal(handed.status, "completed");
  assert.deepEqual(handed.answer, { ok: true });
  const told = await new Agent({ tools, planner: modelPlanner({ model: scriptedModel(says.text("All done.")) }) }).run(
    "x",
  );
  assert.equal(told.answer, "All done.");
});

test("calls and a hand-back in one answer: the calls are taken first, then the output is handed back", async () => {
  const { tools } = shelf();
  const model = scriptedModel(() => ({ calls: [{ tool: "read", args: {} }], handBack: "read it", usage: none }));
  const state = await new Agent({ tools, planner: modelPlanner({ model }) }).run("x");
  assert.deepEqual(
    state.steps.map((step) => step.outcome),
    ["executed", "finished"],
  );
  assert.equal(state.answer, "read it");
  assert.equal(model.requests.length, 1);
});

test("a refused output is shown to the model, which may try again", async () => {
  const { tools } = shelf();
  const model = scriptedModel(says.handBack({ count: -1 }), says.handBack({ count: 3 }));
  const skill: Skill<null, { count: number }> = {
    name: "Count",
    brief: () => "count",
    check: (output) => (output.count < 0 ? "A count is never negative." : null),
  };
  const outcome = await new Agent({ tools, planner: modelPlanner({ model }) }).do(skill, null);
  assert.equal(outcome.done, true);
  assert.deepEqual(
    outcome.state.steps.map((step) => step.outcome),
    ["answer_rejected", "finished"],
  );
  const refusal = model.requests[1]?.messages.at(-1);
  assert.equal(refusal?.role, "tool");
  assert.equal(refusal?.role === "tool" ? refusal.callId : "", "call_1");
  assert.match(String(contentOf(refusal)), /A count is never negative\./);
});

test("a malformed answer fails the run clearly with model_failed, naming the problem", async () => {
  const { tools } = shelf();
  const cases: [string, unknown, RegExp][] = [
    ["calls that are not a list", { calls: "read", usage: none }, /`calls` must be an array/],
    ["no usage", { calls: [], text: "hi" }, /`usage`/],
    ["a call without a tool", { calls: [{ args: {} }], usage: none }, /calls\[0\]\.tool/],
    ["nothing at all", { calls: [], usage: none }, /no tool call, no output handed back and no text/],
    ["only blank text", { calls: [], text: "  ", usage: none }, /no tool call/],
  ];
  for (const [what, response, expected] of cases) {
    const model: ModelClient = { name: "odd", generate: async () => response as ModelResponse };
    const state = await new Agent({ tools, planner: modelPlanner({ model }) }).run("x");
    assert.equal(state.status, "failed", what);
    assert.equal(state.failure?.code, "model_failed", what);
    assert.match(state.failure?.message ?? "", expected, what);
    assert.match(state.failure?.message ?? "", /odd/, what);
  }
});

test("a model that throws, or a script asked past its end, fails the run with model_failed", async () => {
  const { tools } = shelf();
  const broken: ModelClient = { name: "broken", generate: () => Promise.reject(new Error("connection reset")) };
  const failed = await new Agent({ tools, planner: modelPlanner({ model: broken }) }).run("x");
  assert.equal(failed.failure?.code, "model_failed");
  assert.match(failed.failure?.message ?? "", /connection reset/);
  const short = scriptedModel(says.tool("read"));
  const exhausted = await new Agent({ tools, planner: modelPlanner({ model: short }) }).run("x");
  assert.equal(exhausted.failure?.code, "model_failed");
  assert.match(exhausted.failure?.message ?? "", /script has 1 step/);
});

test("the planner's price is charged, else the model's own", async () => {
  const { tools } = shelf();
  const usage = { usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 } };
  const priced = scriptedModel({ price: { input: 2, output: 3 } }, says.handBack(1, usage));
  assert.equal((await new Agent({ tools, planner: modelPlanner({ model: priced }) }).run("x")).usage.cost, 5);
  const overridden = scriptedModel({ price: { input: 2, output: 3 } }, says.handBack(1, usage));
  assert.equal(
    (await new Agent({ tools, planner: modelPlanner({ model: overridden, price: { input: 1, output: 5 } }) }).run("x"))
      .usage.cost,
    6,
  );
  const free = scriptedModel(says.handBack(1, usage));
  const state = await new Agent({ tools, planner: modelPlanner({ model: free }) }).run("x");
  assert.deepEqual(state.usage, { tokens: 2_000_000, cost: 0 });
});

test("bad options are refused when the planner is built", () => {
  const model = scriptedModel();
  const refused = (options: unknown) =>
    assert.throws(
      () => modelPlanner(options as never),
      (error) => isLeashError(error, "invalid_option"),
    );
  refused(undefined);
  refused({});
  refused({ model: { name: "x" } });
  refused({ model, price: { input: -1, output: 1 } });
  refused({ model, purpose: 3 });
  refused({ model, maxOutputTokens: 0 });
});
