// leash inside an OpenAI Agents app: the SDK's `run()` keeps its loop, and every tool call of it goes
// through a leash `Gate` session on a SQLite file (policy, scopes, limits, a person's approval,
// exactly-once effects, the audit trail). A refund waits for a person: the SDK stops with its
// interruption, the app keeps the run state as text, the person answers in leash (here as
// `leash approve` or the inbox would record it), and the app restores the run state, approves the
// interruption and runs the SDK's loop on, which runs the refund once.
//
// Run it with `npm run build && npx tsx examples/openai-agents-gate.ts [database]`. With OPENAI_API_KEY
// set it talks to OpenAI (LEASH_OPENAI_MODEL, default gpt-5-mini); without it, a scripted model stands
// in for one, so the app runs anywhere.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model, ModelResponse } from "@openai/agents";
import { Agent, OpenAIProvider, RunState, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { Approval, Gate, Policy, verifyAudit } from "leash";
import { chargedModel, gateTools, leashTool } from "leash/openai-agents";
import { SqliteStore } from "leash/sqlite";

setTracingDisabled(true);

// The app's tools, as the SDK declares them. `errorFunction: null` lets an error reach leash as the
// call's `tool_error` rather than a string result the SDK makes of it.
const refunds: string[] = [];
const lookupOrder = tool({
  name: "lookup_order",
  description: "Look an order up by its id.",
  parameters: z.object({ orderId: z.string() }),
  errorFunction: null,
  execute: ({ orderId }) => ({ orderId, item: "kettle", paid: 39 }),
});
const refundOrder = tool({
  name: "refund_order",
  description: "Refund an order to the card it was paid with.",
  parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
  errorFunction: null,
  execute: ({ orderId, amount }) => {
    refunds.push(`${orderId}: ${amount}`);
    return { refunded: amount };
  },
});

// What leash needs to know that the SDK does not say: each tool's effect and scopes.
const store = new SqliteStore(process.argv[2] ?? join(mkdtempSync(join(tmpdir(), "leash-gate-")), "leash.db"));
const gate = new Gate({
  tools: [
    leashTool(lookupOrder, { name: "lookup_order", effect: "read" }),
    leashTool(refundOrder, { name: "refund_order", effect: "external", scopes: ["payments:refund"] }),
  ],
  policy: new Policy({ allowEffects: ["read", "external"], grantedScopes: ["payments:refund"] }),
  limits: { maxCost: 0.5, maxToolCalls: 10 },
  store,
});

// One session per conversation: the same id again, in any process, goes on with the same run.
const conversationId = "support-chat-1042";
const session = await gate.session(conversationId, { goal: "Help the customer with order 1042." });
const modelName = process.env.LEASH_OPENAI_MODEL ?? "gpt-5-mini";
const agent = new Agent({
  name: "Support",
  instructions: "You are a support agent. Look orders up before refunding them.",
  // Each model call is charged to the session, so `maxCost` bounds the SDK's model calls too.
  model: chargedModel(await pickModel(), session, { price: { input: 0.25, output: 2 }, name: modelName }),
  tools: gateTools(session),
});

const result = await run(agent, "My kettle (order 1042) arrived broken. Refund it, please.");

// The SDK stops with its interruption; leash recorded the same request, bound to a digest. The app
// keeps the run state as text while a person answers (minutes or days, in another process maybe).
const saved = result.state.toString();
for (const interruption of result.interruptions) {
  console.log(`asks:     ${interruption.name}(${interruption.arguments})`);
  // A person answers in leash: `leash approve`, the inbox, or (as here) the store itself.
  const callId = "callId" in interruption.rawItem ? interruption.rawItem.callId : "";
  const request = await waitingRequest(callId);
  await store.answer(conversationId, Approval.grant(request.digest, "noor", "Broken on arrival."));
  console.log(`approved: by noor in leash (digest ${request.digest.slice(0, 12)}…)`);
}
let finalOutput = result.finalOutput;
// Only now, with the answer in leash, the app approves the SDK's interruptions and runs on. Leash runs
// the refund because it holds the person's grant; `state.approve` alone would run nothing.
if (result.interruptions.length > 0) {
  const state = await RunState.fromString(agent, saved);
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  finalOutput = (await run(agent, state)).finalOutput;
}
const answer = String(finalOutput ?? "");
console.log(`answer:   ${answer}`);
console.log(`refunds:  ${JSON.stringify(refunds)}`);

await session.end(answer);
const ended = await store.load(conversationId);
const outcomes = ended?.steps.map(
  (step) => `${step.decision.type === "act" ? step.decision.tool : "finish"} ${step.outcome}`,
);
console.log(`run:      ${ended?.status}; steps: ${outcomes?.join(", ")}`);
console.log(`charged:  ${ended?.usage.tokens} tokens, ${ended?.usage.cost.toFixed(6)}`);
console.log(`trail:    ${verifyAudit(await store.read(conversationId)).length === 0 ? "verified" : "broken"}`);
await store.close();

/** The request leash holds for one tool call of the conversation. */
async function waitingRequest(callId: string) {
  const stored = await store.load(conversationId);
  const step = stored?.steps.find((each) => each.decision.type === "act" && each.decision.callId === callId);
  const request = stored?.waiting?.find((each) => each.step === step?.index);
  if (request === undefined) throw new Error(`leash holds no request for the call ${callId}.`);
  return request;
}

/** OpenAI with a key; otherwise a scripted model that answers as one would. */
async function pickModel(): Promise<Model> {
  if ((process.env.OPENAI_API_KEY ?? "") !== "") return await new OpenAIProvider().getModel(modelName);
  const usage = () => new Usage({ requests: 1, inputTokens: 120, outputTokens: 30, totalTokens: 150 });
  const call = (callId: string, name: string, args: unknown): ModelResponse => ({
    usage: usage(),
    output: [{ type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" }],
  });
  const answers: ModelResponse[] = [
    call("call_lookup", "lookup_order", { orderId: "1042" }),
    call("call_refund", "refund_order", { orderId: "1042", amount: 39 }),
    {
      usage: usage(),
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "I have refunded the 39 you paid for order 1042." }],
        },
      ],
    },
  ];
  return {
    getResponse: () => {
      const next = answers.shift();
      return next === undefined
        ? Promise.reject(new Error("The scripted model has no answer left."))
        : Promise.resolve(next);
    },
    // eslint-disable-next-line require-yield
    getStreamedResponse: async function* () {
      throw new Error("The scripted model does not stream.");
    },
  };
}
