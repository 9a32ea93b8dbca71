// `leash/openai-agents` over a real `Gate` whose approver callable answers, under the real `run()` of
// `@openai/agents`: a call the approver grants runs without the SDK's interruption, a call it leaves
// to a person raises the interruption (its request recorded in leash), and the approver is never
// asked twice about the same request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, run, setTracingDisabled } from "@openai/agents";
import { Approval, Gate, MemoryStore, Policy, tool } from "../../src/index.js";
import type { ApprovalRequest } from "../../src/index.js";
import { gateTools } from "../../src/providers/openai-agents/index.js";
import { outputsIn, scriptedAgentsModel } from "./openai-agents/scripted-agents-model.js";
import type { ScriptStep } from "./openai-agents/scripted-agents-model.js";

setTracingDisabled(true);

/** A gate whose approver grants payments up to 20 and leaves larger ones to a person. */
async function approverApp(script: ScriptStep[][]) {
  const paid: number[] = [];
  const asked: ApprovalRequest[] = [];
  const pay = tool({
    name: "pay",
    description: "Pay an amount.",
    effect: "write",
    parameters: {
      type: "object",
      properties: { amount: { type: "number" } },
      required: ["amount"],
      additionalProperties: false,
    },
    execute: ({ amount }) => {
      paid.push(amount as number);
      return { paid: amount as number };
    },
  });
  const store = new MemoryStore();
  const gate = new Gate({
    tools: [pay],
    store,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: (request) => {
      asked.push(request);
      return (request.args as { amount: number }).amount <= 20 ? Approval.grant(request.digest, "auto") : null;
    },
  });
  const session = await gate.session("conversation-approver");
  const model = scriptedAgentsModel(script);
  const agent = new Agent({ name: "Assistant", instructions: "Help.", model, tools: gateTools(session) });
  return { agent, model, store, paid, asked };
}

test("a call the gate's approver grants runs under run() without the SDK's interruption, the approver asked once", async () => {
  const { agent, model, store, paid, asked } = await approverApp([
    [{ type: "call", callId: "call_small", name: "pay", args: { amount: 12 } }],
    [{ type: "text", text: "Paid." }],
  ]);
  const result = await run(agent, "Pay 12.");
  assert.equal(result.interruptions.length, 0);
  assert.equal(result.finalOutput, "Paid.");
  assert.deepEqual(paid, [12]);
  assert.equal(asked.length, 1);
  assert.equal(outputsIn(model.requests[1]!).get("call_small"), JSON.stringify({ paid: 12 }));
  assert.equal((await store.load("conversation-approver"))?.waiting?.length ?? 0, 0);
});

test("a call the approver leaves to a person raises the SDK's interruption; no request is put to the approver twice", async () => {
  const { agent, store, paid, asked } = await approverApp([
    [
      { type: "call", callId: "call_small", name: "pay", args: { amount: 12 } },
      { type: "call", callId: "call_big", name: "pay", args: { amount: 120 } },
    ],
  ]);
  const result = await run(agent, "Pay 12 and 120.");
  assert.deepEqual(
    result.interruptions.map((item) => (item.rawItem as { callId?: string }).callId),
    ["call_big"],
  );
  assert.deepEqual(paid, [12], "the granted call ran, once; the other waits");
  const waiting = (await store.load("conversation-approver"))?.waiting ?? [];
  assert.deepEqual(
    waiting.map((request) => request.args),
    [{ amount: 120 }],
  );
  const digests = asked.map((request) => request.digest);
  assert.equal(new Set(digests).size, digests.length, "every request the approver heard is another one");
});
