// aiSdkModel keeps the provider metadata of every part of an answer (Gemini 3 puts its thought
// signature on the tool-call and text parts) and sends it back as that part's providerOptions.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Content, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, Policy, modelPlanner, tool } from "../../../src/index.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import { finishPart, generated, plain, quiet, requestOf, streamed } from "./mock.js";

const textSig = { google: { thoughtSignature: "TEXT-SIG" } };
const callSig = { google: { thoughtSignature: "CALL-SIG", nested: { keep: [1, "two", null] } } };
const thought = { google: { thoughtSignature: "THOUGHT-SIG" } };

const content: LanguageModelV3Content[] = [
  { type: "reasoning", text: "Which shelf?", providerMetadata: thought },
  { type: "text", text: "Looking.", providerMetadata: textSig },
  { type: "tool-call", toolCallId: "fc_1", toolName: "read", input: '{"text":"top"}', providerMetadata: callSig },
  { type: "tool-call", toolCallId: "fc_2", toolName: "read", input: '{"text":"low"}' },
];

const parts: LanguageModelV3StreamPart[] = [
  { type: "reasoning-start", id: "r1" },
  { type: "reasoning-delta", id: "r1", delta: "Which shelf?" },
  { type: "reasoning-end", id: "r1", providerMetadata: thought },
  { type: "text-start", id: "t1", providerMetadata: textSig },
  { type: "text-delta", id: "t1", delta: "Look" },
  { type: "text-delta", id: "t1", delta: "ing." },
  { type: "text-end", id: "t1" },
  { type: "tool-call", toolCallId: "fc_1", toolName: "read", input: '{"text":"top"}', providerMetadata: callSig },
  { type: "tool-call", toolCallId: "fc_2", toolName: "read", input: '{"text":"low"}' },
  finishPart("tool-calls"),
];

const replayed = [
  { type: "reasoning", text: "Which shelf?", providerOptions: thought },
  { type: "text", text: "Looking.", providerOptions: textSig },
  { type: "tool-call", toolCallId: "fc_1", toolName: "read", input: { text: "top" }, providerOptions: callSig },
  { type: "tool-call", toolCallId: "fc_2", toolName: "read", input: { text: "low" } },
];

for (const stream of [false, true]) {
  test(`a tool-call's and a text's provider metadata go back verbatim as that part's providerOptions (${stream ? "streamed" : "not streamed"})`, async () => {
    const next = generated([{ type: "text", text: "Done." }]);
    const model = new MockLanguageModelV3({
      provider: "google.generative-ai",
      modelId: "gemini-3-pro-preview",
      ...(stream
        ? {
            doStream: [
              streamed(parts),
              streamed([{ type: "text-delta", id: "t", delta: "Done." }, finishPart("stop")]),
            ],
          }
        : { doGenerate: [generated(content, "tool-calls"), next] }),
    });
    const client = aiSdkModel(model, { stream });
    const first = await client.generate(requestOf(), quiet());
    assert.equal(first.text, "Looking.");
    assert.deepEqual(
      first.calls.map((call) => call.id),
      ["fc_1", "fc_2"],
    );
    await client.generate(
      requestOf([
        { role: "assistant", text: "Looking.", calls: first.calls, providerState: first.providerState },
        { role: "tool", callId: "fc_1", tool: "read", outcome: "executed", content: "top shelf" },
        { role: "tool", callId: "fc_2", tool: "read", outcome: "executed", content: "low shelf" },
      ]),
      quiet(),
    );
    const calls = stream ? model.doStreamCalls : model.doGenerateCalls;
    const assistant = calls[1]?.prompt.find((message) => message.role === "assistant");
    assert.deepEqual(plain(assistant?.content), replayed);
  });
}

test("through a run, the next request replays the call with its thought signature", async () => {
  let asked = 0;
  const model = new MockLanguageModelV3({
    provider: "google.generative-ai",
    modelId: "gemini-3-pro-preview",
    doGenerate: async () =>
      asked++ === 0
        ? generated(
            [content[1]!, { ...(content[2] as object), toolName: "lookup", input: "{}" } as LanguageModelV3Content],
            "tool-calls",
          )
        : generated([{ type: "text", text: "done" }]),
  });
  const lookup = tool({ name: "lookup", parameters: { type: "object" }, execute: () => "page" });
  const agent = new Agent({
    tools: [lookup],
    planner: modelPlanner({ model: aiSdkModel(model) }),
    policy: new Policy({ allowEffects: ["read"] }),
  });
  const state = await agent.run("go");
  assert.equal(state.status, "completed");
  const assistant = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "assistant");
  assert.deepEqual(plain(assistant?.content), [
    { type: "text", text: "Looking.", providerOptions: textSig },
    { type: "tool-call", toolCallId: "fc_1", toolName: "lookup", input: {}, providerOptions: callSig },
  ]);
});
