import { test } from "node:test";
import assert from "node:assert/strict";
import { MockLanguageModelV3 } from "ai/test";
import { isLeashError } from "../../../src/index.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import type { AiSdkLanguageModel } from "../../../src/providers/ai-sdk/index.js";
import { generated, plain, quiet, requestOf, toolDescription, usageV3 } from "./mock.js";

const signature = { anthropic: { signature: "sig-1" } };

test("sends the system, the task, each answer with its reasoning first, its calls, and one tool message with every result", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "Done." }]) });
  const client = aiSdkModel(model);
  const request = requestOf(
    [
      {
        role: "assistant",
        text: "Reading first.",
        calls: [
          { id: "c1", tool: "read", args: { text: "shelf" } },
          { id: "c2", tool: "write", args: '{"text": "oops', invalidJson: true },
          { id: "c3", tool: "write", args: { text: "A" } },
        ],
        providerState: [{ type: "reasoning", text: "Think.", providerOptions: signature }],
      },
      { role: "tool", callId: "c1", tool: "read", outcome: "executed", content: { books: 3 } },
      {
        role: "tool",
        callId: "c2",
        tool: "write",
        outcome: "invalid_arguments",
        content: "The arguments are not JSON.",
      },
      { role: "tool", callId: "c3", tool: "write", outcome: "executed", content: "labelled A" },
      { role: "assistant", calls: [], handBack: { id: "h1", output: 2 } },
      { role: "tool", callId: "h1", tool: "CountBooks", outcome: "answer_rejected", content: "There are 3 books." },
      { role: "user", content: "Answer with the hand-back tool." },
    ],
    { output: { type: "integer" }, maxOutputTokens: 300 },
  );
  const { signal } = quiet();
  await client.generate(request, { signal });
  const [sent] = model.doGenerateCalls;
  assert.ok(sent);
  assert.deepEqual(plain(sent.prompt), [
    { role: "system", content: "You keep a shelf." },
    { role: "user", content: [{ type: "text", text: "Label the shelf." }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Think.", providerOptions: signature },
        { type: "text", text: "Reading first." },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: { text: "shelf" } },
        { type: "tool-call", toolCallId: "c2", toolName: "write", input: '{"text": "oops' },
        { type: "tool-call", toolCallId: "c3", toolName: "write", input: { text: "A" } },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "json", value: { books: 3 } } },
        {
          type: "tool-result",
          toolCallId: "c2",
          toolName: "write",
          output: { type: "error-text", value: "The arguments are not JSON." },
        },
        { type: "tool-result", toolCallId: "c3", toolName: "write", output: { type: "text", value: "labelled A" } },
      ],
    },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "h1", toolName: "hand_back", input: { output: 2 } }],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "h1",
          toolName: "hand_back",
          output: { type: "error-text", value: "There are 3 books." },
        },
      ],
    },
    { role: "user", content: [{ type: "text", text: "Answer with the hand-back tool." }] },
  ]);
  assert.deepEqual(
    sent.tools?.map((tool) => tool.name),
    ["read", "write", "hand_back"],
  );
  assert.deepEqual(sent.tools?.[2], {
    type: "function",
    name: "hand_back",
    description: "Call this once the work is done, to hand back the output in the required shape.",
    inputSchema: {
      type: "object",
      properties: { output: { type: "integer" } },
      required: ["output"],
      additionalProperties: false,
    },
  });
  assert.deepEqual(sent.toolChoice, { type: "auto" });
  assert.equal(sent.maxOutputTokens, 300);
  assert.equal(sent.abortSignal, signal);
  assert.equal(sent.providerOptions, undefined);
});

test("the hand-back tool never takes an app tool's name, and a request without tools offers none", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "Hi." }]) });
  const client = aiSdkModel(model, { handBackTool: "finish" });
  await client.generate(requestOf([], { tools: [toolDescription("finish")], output: { type: "object" } }), quiet());
  await client.generate(requestOf([], { tools: [] }), quiet());
  assert.deepEqual(
    model.doGenerateCalls[0]?.tools?.map((tool) => tool.name),
    ["finish", "finish_2"],
  );
  assert.equal(model.doGenerateCalls[1]?.tools, undefined);
  assert.equal(model.doGenerateCalls[1]?.toolChoice, undefined);
});

test("maps text, tool calls, malformed argument text and a hand-back call of a result", async () => {
  const model = new MockLanguageModelV3({
    doGenerate: generated(
      [
        { type: "text", text: "Two things. " },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"text":"shelf"}' },
        { type: "tool-call", toolCallId: "c2", toolName: "write", input: '{"text": ' },
        { type: "tool-call", toolCallId: "c3", toolName: "read", input: "" },
        { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: "{}", providerExecuted: true },
        { type: "text", text: "Then done." },
        { type: "tool-call", toolCallId: "h1", toolName: "hand_back", input: '{"count":3}' },
      ],
      "tool-calls",
    ),
  });
  const response = await aiSdkModel(model).generate(requestOf([], { output: { type: "object" } }), quiet());
  assert.deepEqual(response, {
    calls: [
      { id: "c1", tool: "read", args: { text: "shelf" } },
      { id: "c2", tool: "write", args: '{"text": ', invalidJson: true },
      { id: "c3", tool: "read", args: {} },
    ],
    text: "Two things. Then done.",
    handBack: { count: 3 },
    handBackId: "h1",
    usage: { inputTokens: 10, outputTokens: 5 },
    finish: "tool_calls",
  });
});

test("reasoning parts come back as providerState with their metadata and go back verbatim as provider options", async () => {
  const reasoning = [
    { type: "reasoning" as const, text: "Let me count.", providerMetadata: signature },
    { type: "reasoning" as const, text: "", providerMetadata: { anthropic: { redactedData: "opaque==" } } },
  ];
  const model = new MockLanguageModelV3({
    doGenerate: [
      generated([...reasoning, { type: "tool-call", toolCallId: "c1", toolName: "read", input: "{}" }], "tool-calls"),
      generated([{ type: "text", text: "Three." }]),
    ],
  });
  const client = aiSdkModel(model);
  const first = await client.generate(requestOf(), quiet());
  assert.deepEqual(first.providerState, [
    { type: "reasoning", text: "Let me count.", providerOptions: signature },
    { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque==" } } },
  ]);
  await client.generate(
    requestOf([
      { role: "assistant", calls: first.calls, providerState: first.providerState },
      { role: "tool", callId: "c1", tool: "read", outcome: "executed", content: "three books" },
    ]),
    quiet(),
  );
  const assistant = model.doGenerateCalls[1]?.prompt[2];
  assert.deepEqual(plain(assistant), {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Let me count.", providerOptions: signature },
      { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque==" } } },
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: {} },
    ],
  });
});

test("normalizes the AI SDK's nested usage with cache reads, cache writes and reasoning, and older flat counts", async () => {
  const cases: [unknown, object][] = [
    [
      usageV3(1000, 300, { cacheRead: 600, cacheWrite: 100, reasoning: 200 }),
      { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 600, cacheWriteTokens: 100, reasoningTokens: 200 },
    ],
    [
      {
        inputTokens: { total: undefined, noCache: 300, cacheRead: 600, cacheWrite: 100 },
        outputTokens: { total: undefined, text: 100, reasoning: 200 },
      },
      { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 600, cacheWriteTokens: 100, reasoningTokens: 200 },
    ],
    [
      {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      { inputTokens: 0, outputTokens: 0 },
    ],
    [
      { inputTokens: 50, outputTokens: 20, totalTokens: 70, cachedInputTokens: 30, reasoningTokens: 5 },
      { inputTokens: 50, outputTokens: 20, cacheReadTokens: 30, reasoningTokens: 5 },
    ],
  ];
  for (const [usage, expected] of cases) {
    const model = new MockLanguageModelV3({
      doGenerate: { ...generated([{ type: "text", text: "ok" }]), usage: usage as never },
    });
    const response = await aiSdkModel(model).generate(requestOf(), quiet());
    assert.deepEqual(response.usage, expected);
  }
});

test("maps the AI SDK's finish reasons, object or string, to leash's", async () => {
  const cases: [unknown, string][] = [
    [{ unified: "stop", raw: "stop" }, "stop"],
    [{ unified: "tool-calls", raw: "tool_use" }, "tool_calls"],
    [{ unified: "length", raw: "max_tokens" }, "length"],
    [{ unified: "content-filter", raw: undefined }, "content_filter"],
    [{ unified: "error", raw: undefined }, "error"],
    [{ unified: "other", raw: "pause_turn" }, "other"],
    [{ unified: "interrupted", raw: undefined }, "other"],
    ["tool-calls", "tool_calls"],
    ["unknown", "other"],
  ];
  for (const [finishReason, expected] of cases) {
    const model = new MockLanguageModelV3({
      doGenerate: { ...generated([{ type: "text", text: "ok" }]), finishReason: finishReason as never },
    });
    assert.equal((await aiSdkModel(model).generate(requestOf(), quiet())).finish, expected);
  }
});

test("names itself provider:modelId, carries its price, and sends parallelToolCalls as the provider's options", async () => {
  const model = new MockLanguageModelV3({
    provider: "openai.chat",
    modelId: "gpt-4.1",
    doGenerate: generated([{ type: "text", text: "ok" }]),
  });
  const client = aiSdkModel(model, { price: { input: 2, output: 8, cacheRead: 0.5 }, parallelToolCalls: false });
  assert.equal(client.name, "openai.chat:gpt-4.1");
  assert.deepEqual(client.price, { input: 2, output: 8, cacheRead: 0.5 });
  await client.generate(requestOf(), quiet());
  assert.deepEqual(model.doGenerateCalls[0]?.providerOptions, {
    openai: { parallelToolCalls: false },
    anthropic: { disableParallelToolUse: true },
  });
});

test("refuses anything but a V3 or V4 language model, and bad options, with invalid_option", () => {
  const v2 = { ...new MockLanguageModelV3(), specificationVersion: "v2" };
  const noMethods = { specificationVersion: "v3", provider: "x", modelId: "m" };
  for (const bad of [null, undefined, "gpt-4.1", {}, v2, noMethods, () => undefined]) {
    assert.throws(
      () => aiSdkModel(bad as AiSdkLanguageModel),
      (error: unknown) => isLeashError(error, "invalid_option") && /specificationVersion/.test(error.message),
    );
  }
  const model = new MockLanguageModelV3();
  for (const options of [{ stream: "yes" }, { price: { input: -1, output: 1 } }, { handBackTool: "no spaces" }]) {
    assert.throws(
      () => aiSdkModel(model, options as never),
      (error: unknown) => isLeashError(error, "invalid_option"),
    );
  }
});

test("a failed doGenerate rejects with the provider's error, and an abort rejects even when the model ignores its signal", async () => {
  const failing = new MockLanguageModelV3({
    doGenerate: () => Promise.reject(new Error("429 Too Many Requests")),
  });
  await assert.rejects(aiSdkModel(failing).generate(requestOf(), quiet()), /429 Too Many Requests/);
  let called!: () => void;
  const calledNow = new Promise<void>((resolve) => (called = resolve));
  const stuck = new MockLanguageModelV3({
    doGenerate: () => {
      called();
      return new Promise(() => undefined);
    },
  });
  const controller = new AbortController();
  const pending = aiSdkModel(stuck).generate(requestOf(), { signal: controller.signal });
  await calledNow;
  controller.abort();
  await assert.rejects(pending, (error: unknown) => error instanceof Error && error.name === "AbortError");
});
