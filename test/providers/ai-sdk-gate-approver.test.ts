// `gateTools` of `leash/ai-sdk` over a real `Gate` whose approver callable answers, under ai 6's real
// `generateText`: a call the approver grants runs in the same step, without the SDK's approval
// request; a call it leaves to a person stops `generateText` with the SDK's own request, recorded in
// leash, and runs once a person's answer is there.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ModelMessage } from "ai";
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { z } from "zod";
import { Approval, Gate, MemoryStore, Policy } from "../../src/index.js";
import type { ApprovalRequest } from "../../src/index.js";
import { gateTools, leashTool } from "../../src/providers/ai-sdk/index.js";
import { scriptedModel, toolResultsIn } from "./ai-sdk-gate-script.js";

/** A gate whose approver grants refunds up to 20 and leaves larger ones to a person. */
async function refundApp() {
  const refunded: number[] = [];
  const asked: ApprovalRequest[] = [];
  const refund = aiTool({
    description: "Refund an amount.",
    inputSchema: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      refunded.push(amount);
      return { refunded: amount };
    },
  });
  const tools = [leashTool(refund, { name: "refund", effect: "write" })];
  const store = new MemoryStore();
  const gate = new Gate({
    tools,
    store,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: (request) => {
      asked.push(request);
      return (request.args as { amount: number }).amount <= 20 ? Approval.grant(request.digest, "auto") : null;
    },
  });
  const session = await gate.session("chat-approver");
  return { store, session, tools: gateTools(session, { tools }), refunded, asked };
}

test("a call the gate's approver grants runs under generateText without the SDK's approval request, the approver asked once", async () => {
  const { tools, refunded, asked } = await refundApp();
  const { model, prompts } = scriptedModel({ calls: [["call_small", "refund", { amount: 12 }]] }, { text: "Done." });
  const result = await generateText({ model, tools, prompt: "Refund 12.", stopWhen: stepCountIs(3) });
  assert.equal(result.text, "Done.");
  assert.equal(result.content.filter((part) => part.type === "tool-approval-request").length, 0);
  assert.deepEqual(refunded, [12]);
  assert.equal(asked.length, 1);
  assert.deepEqual(toolResultsIn(prompts[1]).call_small, { refunded: 12 });
});

test("a call the approver leaves to a person stops generateText with the SDK's request, and runs once a person answers in leash", async () => {
  const { store, tools, refunded, asked } = await refundApp();
  const prompt: ModelMessage[] = [{ role: "user", content: "Refund 120." }];
  const first = scriptedModel({ calls: [["call_big", "refund", { amount: 120 }]] });
  const stopped = await generateText({ model: first.model, tools, messages: prompt, stopWhen: stepCountIs(3) });
  const request = stopped.content.find((part) => part.type === "tool-approval-request");
  assert.ok(request !== undefined, "the SDK's own approval request");
  assert.deepEqual(refunded, []);
  const waiting = (await store.load("chat-approver"))?.waiting ?? [];
  assert.deepEqual(
    waiting.map((each) => each.args),
    [{ amount: 120 }],
  );
  await store.answer("chat-approver", Approval.grant(waiting[0]!.digest, "noor"));
  const messages: ModelMessage[] = [
    ...prompt,
    ...stopped.response.messages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] },
  ];
  const second = scriptedModel({ text: "Refunded." });
  const resumed = await generateText({ model: second.model, tools, messages, stopWhen: stepCountIs(3) });
  assert.equal(resumed.text, "Refunded.");
  assert.deepEqual(refunded, [120]);
  assert.equal(asked.length, 1, "the approver heard the request once; the person answered it");
});
