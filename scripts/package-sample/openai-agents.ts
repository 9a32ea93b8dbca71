// `leash/openai-agents` as an installed package, beside the real `@openai/agents`: a function tool made
// by the SDK's own `tool()` becomes a leash tool, the gate's tools go back to an SDK `Agent`, and the
// SDK's `run()` drives one call through a gate on a memory store with a scripted model (no request is
// sent). The check is that this typechecks under strict TypeScript and runs.
import assert from "node:assert/strict";
import type { Model, ModelResponse } from "@openai/agents";
import { Agent, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { Gate, MemoryStore, verifyAudit } from "leash";
import { chargedModel, gateTools, leashTool } from "leash/openai-agents";

setTracingDisabled(true);

const lookupOrder = tool({
  name: "lookup_order",
  description: "Look an order up by its id.",
  parameters: z.object({ orderId: z.string() }),
  errorFunction: null,
  execute: ({ orderId }) => ({ orderId, paid: 39 }),
});
const store = new MemoryStore();
const gate = new Gate({ tools: [leashTool(lookupOrder, { name: "lookup_order", effect: "read" })], store });
const session = await gate.session("package-check");

const usage = () => new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
const answers: ModelResponse[] = [
  {
    usage: usage(),
    output: [
      {
        type: "function_call",
        callId: "call_1",
        name: "lookup_order",
        arguments: '{"orderId":"1042"}',
        status: "completed",
      },
    ],
  },
  {
    usage: usage(),
    output: [
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Paid 39." }] },
    ],
  },
];
const scripted: Model = {
  getResponse: () => Promise.resolve(answers.shift() ?? assert.fail("the scripted model has no answer left")),
  // eslint-disable-next-line require-yield
  getStreamedResponse: async function* () {
    await Promise.resolve();
    throw new Error("the scripted model does not stream");
  },
};
const agent = new Agent({
  name: "Support",
  model: chargedModel(scripted, session, { name: "scripted" }),
  tools: gateTools(session),
});
const result = await run(agent, "What was paid for order 1042?");
assert.equal(result.finalOutput, "Paid 39.");
const state = await store.load("package-check");
assert.deepEqual(
  state?.steps.map((step) => step.outcome),
  ["executed"],
);
assert.equal(state?.usage.tokens, 30, "both model calls were charged to the session");
assert.deepEqual(verifyAudit(await store.read("package-check")), []);
console.log("openai-agents: ready");
