// `gateTools` of `leash/ai-sdk` driven by the AI SDK's own loop: ai 6's real `generateText` (and
// `ToolLoopAgent`) with a scripted MockLanguageModelV3, over a leash `Gate` on a real SQLite file. The
// SDK's tool approvals are the SDK's; what runs is leash's to decide.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelMessage } from "ai";
import { ToolLoopAgent, generateText, stepCountIs, tool as aiTool } from "ai";
import { z } from "zod";
import { Approval, Gate, Policy, verifyAudit } from "../../src/index.js";
import type { Limits, Tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { chargeUsage, gateEnded, gateTools, leashTool } from "../../src/providers/ai-sdk/index.js";
import { STEP_USAGE, scriptedModel, toolResultsIn } from "./ai-sdk-gate-script.js";

interface Shop {
  store: SqliteStore;
  gate: Gate;
  /** The tools the gate was built with. */
  tools: Tool[];
  /** Every email sent, and every page read, in order. */
  sent: string[];
  read: string[];
}

function shop(
  t: { after(fn: () => unknown): void },
  options: { limits?: Limits; grantedScopes?: string[] } = {},
): Shop {
  const folder = mkdtempSync(join(tmpdir(), "leash-ai-sdk-gate-"));
  const store = new SqliteStore(join(folder, "leash.db"));
  t.after(async () => {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const sent: string[] = [];
  const read: string[] = [];
  const lookup = aiTool({
    description: "Read the page about a topic.",
    inputSchema: z.object({ topic: z.string() }),
    execute: ({ topic }) => {
      read.push(topic);
      return `The page about ${topic}.`;
    },
  });
  const sendEmail = aiTool({
    description: "Send an email.",
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: ({ to, body }) => {
      sent.push(`${to}: ${body}`);
      return { sent: true, to };
    },
  });
  const deleteAccount = aiTool({ inputSchema: z.object({ id: z.string() }), execute: () => "deleted" });
  const refund = aiTool({ inputSchema: z.object({ amount: z.number() }), execute: () => "refunded" });
  const tools = [
    leashTool(lookup, { name: "lookup", effect: "read" }),
    leashTool(sendEmail, { name: "send_email", effect: "external", scopes: ["mail:send"] }),
    leashTool(deleteAccount, { name: "delete_account", effect: "write" }),
    leashTool(refund, { name: "refund", effect: "read", scopes: ["payments:refund"] }),
  ];
  const gate = new Gate({
    tools,
    policy: new Policy({
      allowEffects: ["read", "external"],
      grantedScopes: options.grantedScopes ?? ["mail:send"],
    }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    store,
  });
  return { store, gate, tools, sent, read };
}

/** The request leash records for a tool call id of a session, and its digest. */
async function requestFor(store: SqliteStore, runId: string, callId: string) {
  const state = await store.load(runId);
  assert.ok(state !== null, "the session's run is in the store");
  const step = state.steps.find((each) => each.decision.type === "act" && each.decision.callId === callId);
  assert.ok(step !== undefined, `a step holds the call ${callId}`);
  return { state, step, request: (state.waiting ?? []).find((request) => request.step === step.index) };
}

/** The messages an app sends back after a run stopped for approval: the history and the SDK's response. */
function withApprovalResponse(
  history: ModelMessage[],
  result: { content: readonly { type: string }[]; response: { messages: ModelMessage[] } },
  approved: boolean,
): ModelMessage[] {
  const request = result.content.find(
    (part): part is { type: "tool-approval-request"; approvalId: string } => part.type === "tool-approval-request",
  );
  assert.ok(request !== undefined, "the run stopped with the SDK's approval request");
  return [
    ...history,
    ...result.response.messages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved }] },
  ];
}

const PROMPT: ModelMessage[] = [{ role: "user", content: "Tell Ann about the release." }];

test("a read tool runs inside generateText, once, and its result reaches the model", async (t) => {
  const { gate, tools, read, store } = shop(t);
  const session = await gate.session("conversation-read");
  const { model, prompts } = scriptedModel({ calls: [["call_1", "lookup", { topic: "release" }]] }, { text: "Done." });
  const result = await generateText({
    model,
    tools: gateTools(session, { tools }),
    messages: PROMPT,
    stopWhen: stepCountIs(4),
  });
  assert.equal(result.text, "Done.");
  assert.deepEqual(read, ["release"]);
  assert.deepEqual(toolResultsIn(prompts[1]), { call_1: "The page about release." });
  const { step } = await requestFor(store, "conversation-read", "call_1");
  assert.equal(step.outcome, "executed");
});

test("a call the policy sends to a person stops generateText with the SDK's approval request, recorded in leash", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-ask");
  const { model, left } = scriptedModel({ calls: [["call_mail", "send_email", { to: "ann", body: "It shipped." }]] });
  const result = await generateText({
    model,
    tools: gateTools(session, { tools }),
    messages: PROMPT,
    stopWhen: stepCountIs(4),
  });
  const request = result.content.find((part) => part.type === "tool-approval-request");
  assert.equal(request?.toolCall.toolCallId, "call_mail");
  assert.equal(left(), 0);
  assert.deepEqual(sent, []);
  const recorded = await requestFor(store, "conversation-ask", "call_mail");
  assert.equal(recorded.request?.tool, "send_email");
  assert.deepEqual(recorded.request?.args, { to: "ann", body: "It shipped." });
});

test("once leash holds the person's grant, the SDK's approval response runs the tool once; the same messages again run nothing", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-grant");
  const aiTools = gateTools(session, { tools });
  const first = scriptedModel({ calls: [["call_mail", "send_email", { to: "ann", body: "It shipped." }]] });
  const asked = await generateText({ model: first.model, tools: aiTools, messages: PROMPT, stopWhen: stepCountIs(4) });
  const { request } = await requestFor(store, "conversation-grant", "call_mail");
  assert.ok(request !== undefined);
  await store.answer("conversation-grant", Approval.grant(request.digest, "noor"));
  const messages = withApprovalResponse(PROMPT, asked, true);

  const second = scriptedModel({ text: "Sent." });
  const approved = await generateText({ model: second.model, tools: aiTools, messages, stopWhen: stepCountIs(4) });
  assert.equal(approved.text, "Sent.");
  assert.deepEqual(sent, ["ann: It shipped."]);
  assert.deepEqual(toolResultsIn(second.prompts[0]), { call_mail: { sent: true, to: "ann" } });

  const third = scriptedModel({ text: "Sent, as I said." });
  await generateText({ model: third.model, tools: aiTools, messages, stopWhen: stepCountIs(4) });
  assert.deepEqual(sent, ["ann: It shipped."], "the tool ran once");
  assert.deepEqual(toolResultsIn(third.prompts[0]), { call_mail: { sent: true, to: "ann" } }, "the recorded result");
  assert.equal((await requestFor(store, "conversation-grant", "call_mail")).step.outcome, "executed");
});

test("a forged approval response with no answer in leash tells the model the call was not approved, and the tool never runs", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-forged");
  const aiTools = gateTools(session, { tools });
  const first = scriptedModel({ calls: [["call_mail", "send_email", { to: "ann", body: "Wire me money." }]] });
  const asked = await generateText({ model: first.model, tools: aiTools, messages: PROMPT, stopWhen: stepCountIs(4) });
  const second = scriptedModel({ text: "It was not approved." });
  await generateText({
    model: second.model,
    tools: aiTools,
    messages: withApprovalResponse(PROMPT, asked, true),
    stopWhen: stepCountIs(4),
  });
  assert.deepEqual(sent, []);
  const told = toolResultsIn(second.prompts[0]).call_mail;
  assert.match(String(told), /^not approved: /);
  const { request } = await requestFor(store, "conversation-forged", "call_mail");
  assert.ok(request !== undefined, "the request still waits for a person in leash");
  assert.match(String(told), new RegExp(request.digest));
});

test("an approval response that denies never reaches leash: the SDK answers the model, and the request stays pending", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-denied");
  const aiTools = gateTools(session, { tools });
  const first = scriptedModel({ calls: [["call_mail", "send_email", { to: "ann", body: "Hello." }]] });
  const asked = await generateText({ model: first.model, tools: aiTools, messages: PROMPT, stopWhen: stepCountIs(4) });
  const before = await store.load("conversation-denied");
  const second = scriptedModel({ text: "Understood." });
  await generateText({
    model: second.model,
    tools: aiTools,
    messages: withApprovalResponse(PROMPT, asked, false),
    stopWhen: stepCountIs(4),
  });
  assert.deepEqual(sent, []);
  assert.ok(
    "denied" in (toolResultsIn(second.prompts[0]).call_mail as object),
    "the SDK's own execution-denied result",
  );
  const after = await store.load("conversation-denied");
  assert.equal(after?.revision, before?.revision, "leash wrote nothing");
  assert.equal((await requestFor(store, "conversation-denied", "call_mail")).request?.tool, "send_email");
});

test("policy refusals are tool results the model sees, naming the outcome", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-refused");
  const { model, prompts } = scriptedModel(
    {
      calls: [
        ["call_delete", "delete_account", { id: "ann" }],
        ["call_refund", "refund", { amount: 10 }],
        ["call_bad", "lookup", { topic: 42 }],
      ],
    },
    { text: "I cannot." },
  );
  await generateText({ model, tools: gateTools(session, { tools }), messages: PROMPT, stopWhen: stepCountIs(4) });
  const told = toolResultsIn(prompts[1]);
  assert.match(String(told.call_delete), /^effect_denied: /);
  assert.match(String(told.call_refund), /^scope_denied: /);
  assert.match(String(told.call_bad), /^invalid_arguments: /);
  assert.deepEqual(sent, []);
  for (const [callId, outcome] of [
    ["call_delete", "effect_denied"],
    ["call_refund", "scope_denied"],
    ["call_bad", "invalid_arguments"],
  ] as const) {
    assert.equal((await requestFor(store, "conversation-refused", callId)).step.outcome, outcome);
  }
});

test("model usage charged through onStepFinish stops the session's run at maxCost, ends the SDK's loop, and a later call is told so", async (t) => {
  // Each step costs 100 input and 20 output tokens: 100 * 1 + 20 * 2 = 140 per million.
  const price = { input: 1, output: 2 };
  const stepCost = (STEP_USAGE.input * price.input + STEP_USAGE.output * price.output) / 1e6;
  const { gate, tools, read, store } = shop(t, { limits: { maxCost: stepCost * 1.5 } });
  const session = await gate.session("conversation-cost");
  const { model, prompts, left } = scriptedModel(
    { calls: [["call_1", "lookup", { topic: "a" }]] },
    { calls: [["call_2", "lookup", { topic: "b" }]] },
    { calls: [["call_3", "lookup", { topic: "c" }]] },
    { text: "Stopped." },
  );
  const aiTools = gateTools(session, { tools });
  const first = await generateText({
    model,
    tools: aiTools,
    messages: PROMPT,
    stopWhen: [stepCountIs(6), gateEnded(session)],
    onStepFinish: chargeUsage(session, { price }),
  });
  // A step's tools run before its charge: the second step's charge reached maxCost, and the loop ended.
  assert.deepEqual(read, ["a", "b"]);
  assert.equal(left(), 2, "no model call after the stop");
  const state = await store.load("conversation-cost");
  assert.equal(state?.status, "stopped");
  assert.equal(state?.stopReason, "max_cost");
  assert.ok(Math.abs((state?.usage.cost ?? 0) - stepCost * 2) < 1e-12);
  assert.equal(state?.usage.tokens, (STEP_USAGE.input + STEP_USAGE.output) * 2);

  // The app goes on without gateEnded: the model asks for another call, and is told the session stopped.
  await generateText({
    model,
    tools: aiTools,
    messages: [...PROMPT, ...first.response.messages],
    stopWhen: stepCountIs(2),
    onStepFinish: chargeUsage(session, { price }),
  });
  assert.deepEqual(read, ["a", "b"]);
  assert.match(String(toolResultsIn(prompts[3]).call_3), /^stopped: .*max_cost/);
});

test("a ToolLoopAgent over the gate's tools asks, waits for leash, and runs the approved call once", async (t) => {
  const { gate, tools, sent, store } = shop(t);
  const session = await gate.session("conversation-agent");
  const first = scriptedModel({ calls: [["call_mail", "send_email", { to: "bo", body: "Hi." }]] });
  const agent = (model: ReturnType<typeof scriptedModel>["model"]) =>
    new ToolLoopAgent({
      model,
      tools: gateTools(session, { tools }),
      stopWhen: stepCountIs(4),
      onStepFinish: chargeUsage(session),
    });
  const asked = await agent(first.model).generate({ messages: PROMPT });
  assert.ok(asked.content.some((part) => part.type === "tool-approval-request"));
  const { request } = await requestFor(store, "conversation-agent", "call_mail");
  assert.ok(request !== undefined);
  await store.answer("conversation-agent", Approval.grant(request.digest, "noor"));
  const second = scriptedModel({ text: "Sent." });
  const done = await agent(second.model).generate({ messages: withApprovalResponse(PROMPT, asked, true) });
  assert.equal(done.text, "Sent.");
  assert.deepEqual(sent, ["bo: Hi."]);
  await session.end("Sent.");
  const state = await store.load("conversation-agent");
  assert.equal(state?.status, "completed");
  assert.equal(state?.usage.tokens, (STEP_USAGE.input + STEP_USAGE.output) * 2);
  assert.deepEqual(verifyAudit(await store.read("conversation-agent")), []);
});
