// leash inside an AI SDK app: the AI SDK's `generateText` keeps its loop, and every tool call of it
// goes through a leash `Gate` session on a SQLite file (policy, scopes, limits, a person's approval,
// exactly-once effects, the audit trail). A refund waits for a person: the app shows the SDK's
// approval request, the person answers in leash (here as `leash approve` or the inbox would record
// it), and the app sends the SDK's approval response, which runs the refund once.
//
// Run it with `npm run build && npx tsx examples/ai-sdk-gate.ts [database]`. With OPENAI_API_KEY set it
// talks to OpenAI (LEASH_OPENAI_MODEL, default gpt-5-mini); without it, a scripted model stands in for
// one, so the app runs anywhere.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel, ModelMessage } from "ai";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { Approval, Gate, Policy, verifyAudit } from "leash";
import { chargeUsage, gateTools, leashTool } from "leash/ai-sdk";
import { SqliteStore } from "leash/sqlite";

// The app's tools, as the AI SDK declares them.
const refunds: string[] = [];
const lookupOrder = tool({
  description: "Look an order up by its id.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, item: "kettle", paid: 39 }),
});
const refundOrder = tool({
  description: "Refund an order to the card it was paid with.",
  inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  execute: ({ orderId, amount }) => {
    refunds.push(`${orderId}: ${amount}`);
    return { refunded: amount };
  },
});

// What leash needs to know that the SDK does not say: each tool's effect and scopes.
const store = new SqliteStore(process.argv[2] ?? join(mkdtempSync(join(tmpdir(), "leash-gate-")), "leash.db"));
const leashTools = [
  leashTool(lookupOrder, { name: "lookup_order", effect: "read" }),
  leashTool(refundOrder, { name: "refund_order", effect: "external", scopes: ["payments:refund"] }),
];
const gate = new Gate({
  tools: leashTools,
  policy: new Policy({ allowEffects: ["read", "external"], grantedScopes: ["payments:refund"] }),
  limits: { maxCost: 0.5, maxToolCalls: 10 },
  store,
});

// One session per conversation: the same id again, in any process, goes on with the same run.
const conversationId = "support-chat-1042";
const session = await gate.session(conversationId, { goal: "Help the customer with order 1042." });
const tools = gateTools(session, { tools: leashTools });
const price = { input: 0.25, output: 2 };
const model = pickModel();

const messages: ModelMessage[] = [
  { role: "user", content: "My kettle (order 1042) arrived broken. Refund it, please." },
];
let result = await generateText({
  model,
  system: "You are a support agent. Look orders up before refunding them.",
  tools,
  messages,
  stopWhen: stepCountIs(5),
  onStepFinish: chargeUsage(session, { price }),
});
messages.push(...result.response.messages);

// The SDK stops with its own approval request; leash recorded the same request, bound to a digest.
const asked = result.content.filter((part) => part.type === "tool-approval-request");
for (const part of asked) {
  console.log(`asks:     ${part.toolCall.toolName}(${JSON.stringify(part.toolCall.input)})`);
  // A person answers in leash: `leash approve`, the inbox, or (as here) the store itself.
  const request = await waitingRequest(part.toolCall.toolCallId);
  await store.answer(conversationId, Approval.grant(request.digest, "noor", "Broken on arrival."));
  console.log(`approved: by noor in leash (digest ${request.digest.slice(0, 12)}…)`);
}
// Only now, with the answer in leash, the app sends the SDK's approval responses.
if (asked.length > 0) {
  messages.push({
    role: "tool",
    content: asked.map((part) => ({ type: "tool-approval-response", approvalId: part.approvalId, approved: true })),
  });
  result = await generateText({
    model,
    tools,
    messages,
    stopWhen: stepCountIs(5),
    onStepFinish: chargeUsage(session, { price }),
  });
}
console.log(`answer:   ${result.text}`);
console.log(`refunds:  ${JSON.stringify(refunds)}`);

await session.end(result.text);
const state = await store.load(conversationId);
const outcomes = state?.steps.map(
  (step) => `${step.decision.type === "act" ? step.decision.tool : "finish"} ${step.outcome}`,
);
console.log(`run:      ${state?.status}; steps: ${outcomes?.join(", ")}`);
console.log(`trail:    ${verifyAudit(await store.read(conversationId)).length === 0 ? "verified" : "broken"}`);
await store.close();

/** The request leash holds for one tool call of the conversation. */
async function waitingRequest(toolCallId: string) {
  const saved = await store.load(conversationId);
  const step = saved?.steps.find((each) => each.decision.type === "act" && each.decision.callId === toolCallId);
  const request = saved?.waiting?.find((each) => each.step === step?.index);
  if (request === undefined) throw new Error(`leash holds no request for the call ${toolCallId}.`);
  return request;
}

/** OpenAI with a key; otherwise a scripted model that answers as one would. */
function pickModel(): LanguageModel {
  if ((process.env.OPENAI_API_KEY ?? "") !== "")
    return createOpenAI().chat(process.env.LEASH_OPENAI_MODEL ?? "gpt-5-mini");
  const usage = {
    inputTokens: { total: 120, noCache: 120, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 30, text: 30, reasoning: undefined },
  };
  const call = (toolCallId: string, toolName: string, input: unknown) => ({
    content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  });
  const answers = [
    call("call_lookup", "lookup_order", { orderId: "1042" }),
    call("call_refund", "refund_order", { orderId: "1042", amount: 39 }),
    {
      content: [{ type: "text" as const, text: "I have refunded the 39 you paid for order 1042." }],
      finishReason: { unified: "stop" as const, raw: "stop" },
      usage,
      warnings: [],
    },
  ];
  return new MockLanguageModelV3({ doGenerate: answers });
}
