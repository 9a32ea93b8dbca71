// aiSdkModel beside the AI SDK itself: the same scripted model, driven by `generateText` and by
// leash, is sent the same prompt and reaches the same answer. A sanity check of the prompt mapping.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { ModelMessage } from "../../../src/models/model-client.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import { generated, plain, quiet, requestOf, toolDescription } from "./mock.js";

const shelfSchema = { type: "object", properties: { text: { type: "string" } }, additionalProperties: false } as const;

function script(): LanguageModelV3GenerateResult[] {
  return [
    generated(
      [
        { type: "reasoning", text: "Read, then write.", providerMetadata: { anthropic: { signature: "s1" } } },
        { type: "text", text: "Looking." },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"text":"top"}' },
        { type: "tool-call", toolCallId: "c2", toolName: "write", input: '{"text":"A"}' },
      ],
      "tool-calls",
    ),
    generated([{ type: "text", text: "The top shelf has three books; labelling was refused." }]),
  ];
}

function execute(name: string, args: { text?: string }): unknown {
  if (name === "write") throw new Error(`Writing ${args.text} is not allowed.`);
  return { shelf: args.text, books: 3 };
}

async function byAiSdk(): Promise<{ text: string; calls: LanguageModelV3CallOptions[] }> {
  const model = new MockLanguageModelV3({ doGenerate: script() });
  const result = await generateText({
    model,
    system: "You keep a shelf.",
    prompt: "Label the shelf.",
    tools: {
      read: tool({
        description: "The read tool.",
        inputSchema: jsonSchema<{ text: string }>(shelfSchema),
        execute: (args) => execute("read", args),
      }),
      write: tool({
        description: "The write tool.",
        inputSchema: jsonSchema<{ text: string }>(shelfSchema),
        execute: (args) => execute("write", args),
      }),
    },
    stopWhen: stepCountIs(5),
  });
  return { text: result.text, calls: model.doGenerateCalls };
}

// The loop a leash run makes, by hand at the port: every call answered in order, refused ones as errors.
async function byLeash(): Promise<{ text: string | undefined; calls: LanguageModelV3CallOptions[] }> {
  const model = new MockLanguageModelV3({ doGenerate: script() });
  const client = aiSdkModel(model);
  const tools = [toolDescription("read", shelfSchema.properties), toolDescription("write", shelfSchema.properties)];
  const messages: ModelMessage[] = [];
  for (;;) {
    const response = await client.generate(requestOf(messages, { tools }), quiet());
    if (response.calls.length === 0) return { text: response.text, calls: model.doGenerateCalls };
    const assistant: ModelMessage = { role: "assistant", calls: response.calls };
    if (response.text !== undefined) assistant.text = response.text;
    if (response.providerState !== undefined) assistant.providerState = response.providerState;
    messages.push(assistant);
    for (const call of response.calls) {
      try {
        const content = execute(call.tool, call.args as { text?: string }) as never;
        messages.push({ role: "tool", callId: call.id, tool: call.tool, outcome: "executed", content });
      } catch (error) {
        const content = (error as Error).message;
        messages.push({ role: "tool", callId: call.id, tool: call.tool, outcome: "tool_failed", content });
      }
    }
  }
}

test("generateText and aiSdkModel over the same scripted model reach the same final text", async () => {
  const [sdk, leash] = await Promise.all([byAiSdk(), byLeash()]);
  assert.equal(leash.text, sdk.text);
  assert.equal(leash.calls.length, 2);
  assert.equal(sdk.calls.length, 2);
});

test("the prompt aiSdkModel sends after a tool step is the one generateText sends: reasoning, text, calls, results, errors", async () => {
  const [sdk, leash] = await Promise.all([byAiSdk(), byLeash()]);
  assert.deepEqual(plain(leash.calls[1]?.prompt), plain(sdk.calls[1]?.prompt));
  const toolsOf = (call: LanguageModelV3CallOptions | undefined) =>
    plain(call?.tools)?.map((offered) => ({
      ...offered,
      inputSchema: plain(offered.type === "function" ? offered.inputSchema : {}),
    }));
  assert.deepEqual(toolsOf(leash.calls[1]), toolsOf(sdk.calls[1]));
  assert.deepEqual(leash.calls[1]?.toolChoice, sdk.calls[1]?.toolChoice);
});
