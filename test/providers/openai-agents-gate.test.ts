// `gateTools` of `leash/openai-agents` under the real `run()` of `@openai/agents` 0.20, with a scripted
// model: a read call runs, a write call raises the SDK's interruption, `state.approve(...)` alone runs
// nothing, a grant held in leash runs the call once, and refusals are outputs the model sees.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, run, setTracingDisabled } from "@openai/agents";
import { tool } from "../../src/tools/tool.js";
import { chargedModel, gateTools } from "../../src/providers/openai-agents/index.js";
import { outputsIn, scriptedAgentsModel } from "./openai-agents/scripted-agents-model.js";
import { SessionDouble } from "./openai-agents/session-double.js";

setTracingDisabled(true);

const lookup = tool({
  name: "lookup",
  description: "Return the page about a topic.",
  parameters: {
    type: "object",
    properties: { topic: { type: "string" } },
    required: ["topic"],
    additionalProperties: false,
  },
  execute: ({ topic }) => `page about ${topic as string}`,
});
const pay = tool({
  name: "pay",
  description: "Pay an amount.",
  parameters: {
    type: "object",
    properties: { amount: { type: "number" } },
    required: ["amount"],
    additionalProperties: false,
  },
  effect: "write",
  execute: ({ amount }) => ({ paid: amount as number }),
});

function agentOf(session: SessionDouble, model: ReturnType<typeof scriptedAgentsModel>) {
  return new Agent({ name: "Assistant", instructions: "Help.", model, tools: gateTools(session) });
}

test("a read call runs through the session and its result is the output the model is sent", async () => {
  const session = new SessionDouble([lookup, pay]);
  const model = scriptedAgentsModel([
    [{ type: "call", callId: "call_1", name: "lookup", args: { topic: "spans" } }],
    [{ type: "text", text: "Done." }],
  ]);
  const result = await run(agentOf(session, model), "Look spans up.");
  assert.equal(result.finalOutput, "Done.");
  assert.deepEqual(session.runs, [{ callId: "call_1", tool: "lookup", args: { topic: "spans" } }]);
  assert.equal(outputsIn(model.requests[1]!).get("call_1"), "page about spans");
});

test("a write call raises the SDK's interruption, recorded in leash under the SDK's call id, and does not run", async () => {
  const session = new SessionDouble([lookup, pay]);
  const model = scriptedAgentsModel([[{ type: "call", callId: "call_pay", name: "pay", args: { amount: 10 } }]]);
  const result = await run(agentOf(session, model), "Pay 10.");
  assert.equal(result.interruptions.length, 1);
  assert.equal(result.interruptions[0]?.name, "pay");
  assert.deepEqual(session.asked, ["call_pay"]);
  assert.deepEqual(session.runs, []);
});

test("state.approve alone runs nothing: the model is told the call was not approved", async () => {
  const session = new SessionDouble([lookup, pay]);
  const model = scriptedAgentsModel([
    [{ type: "call", callId: "call_pay", name: "pay", args: { amount: 10 } }],
    [{ type: "text", text: "It was not approved." }],
  ]);
  const agent = agentOf(session, model);
  const first = await run(agent, "Pay 10.");
  const interruption = first.interruptions[0];
  assert.ok(interruption !== undefined);
  first.state.approve(interruption);
  const second = await run(agent, first.state);
  assert.equal(second.finalOutput, "It was not approved.");
  assert.deepEqual(session.runs, [], "the SDK's approval authorises nothing");
  assert.match(outputsIn(model.requests[1]!).get("call_pay") ?? "", /^not approved: /);
});

test("a grant held in leash and the SDK's approval run the call once, and its result reaches the model", async () => {
  const session = new SessionDouble([lookup, pay]);
  const model = scriptedAgentsModel([
    [{ type: "call", callId: "call_pay", name: "pay", args: { amount: 10 } }],
    [{ type: "text", text: "Paid." }],
  ]);
  const agent = agentOf(session, model);
  const first = await run(agent, "Pay 10.");
  session.granted.add("call_pay");
  first.state.approve(first.interruptions[0]!);
  const second = await run(agent, first.state);
  assert.equal(second.finalOutput, "Paid.");
  assert.deepEqual(session.runs, [{ callId: "call_pay", tool: "pay", args: { amount: 10 } }]);
  assert.equal(outputsIn(model.requests[1]!).get("call_pay"), '{"paid":10}');
});

test("state.reject never reaches leash: the SDK answers the model and the session runs and records nothing more", async () => {
  const session = new SessionDouble([lookup, pay]);
  const model = scriptedAgentsModel([
    [{ type: "call", callId: "call_pay", name: "pay", args: { amount: 10 } }],
    [{ type: "text", text: "Rejected." }],
  ]);
  const agent = agentOf(session, model);
  const first = await run(agent, "Pay 10.");
  first.state.reject(first.interruptions[0]!);
  const second = await run(agent, first.state);
  assert.equal(second.finalOutput, "Rejected.");
  assert.deepEqual(session.runs, []);
  assert.deepEqual(session.asked, ["call_pay"], "needsApproval was asked once, before the rejection");
});

test("a policy refusal and arguments that do not fit are outputs the model sees, naming the outcome", async () => {
  const session = new SessionDouble([lookup, pay], ["read"]);
  const model = scriptedAgentsModel([
    [
      { type: "call", callId: "call_pay", name: "pay", args: { amount: 10 } },
      { type: "call", callId: "call_bad", name: "lookup", args: { subject: "spans" } },
    ],
    [{ type: "text", text: "Refused." }],
  ]);
  const result = await run(agentOf(session, model), "Pay 10.");
  assert.equal(result.finalOutput, "Refused.");
  assert.equal(result.interruptions.length, 0, "a call the policy refuses asks no person");
  const outputs = outputsIn(model.requests[1]!);
  assert.match(outputs.get("call_pay") ?? "", /^effect_denied: /);
  assert.match(outputs.get("call_bad") ?? "", /^invalid_arguments: /);
  assert.deepEqual(session.runs, []);
});

test("chargedModel charges each model call's tokens and cost to the session", async () => {
  const session = new SessionDouble([lookup, pay]);
  const inner = scriptedAgentsModel(
    [[{ type: "call", callId: "call_1", name: "lookup", args: { topic: "ids" } }], [{ type: "text", text: "Done." }]],
    { inputTokens: 1000, outputTokens: 200 },
  );
  const model = chargedModel(inner, session, { price: { input: 1, output: 4 }, name: "scripted" });
  const agent = new Agent({ name: "Assistant", model, tools: gateTools(session) });
  await run(agent, "Look ids up.");
  assert.deepEqual(session.charges, [
    { tokens: 1200, cost: 0.0018, model: "scripted" },
    { tokens: 1200, cost: 0.0018, model: "scripted" },
  ]);
});
