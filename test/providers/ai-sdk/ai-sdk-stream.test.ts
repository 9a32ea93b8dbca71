import { test } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import { finishPart, quiet, requestOf, streamed, usageV3 } from "./mock.js";

test("streams text deltas to onText in order, and the answer has the whole text, the calls, the reasoning and the usage", async () => {
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "resp-1", modelId: "mock" },
    { type: "reasoning-start", id: "r1" },
    { type: "reasoning-delta", id: "r1", delta: "Count " },
    { type: "reasoning-delta", id: "r1", delta: "first." },
    { type: "reasoning-delta", id: "r1", delta: "", providerMetadata: { anthropic: { signature: "sig-9" } } },
    { type: "reasoning-end", id: "r1" },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "Reading" },
    { type: "text-delta", id: "t1", delta: " the " },
    { type: "text-delta", id: "t1", delta: "shelf." },
    { type: "text-end", id: "t1" },
    { type: "tool-input-start", id: "c1", toolName: "read" },
    { type: "tool-input-delta", id: "c1", delta: '{"text":' },
    { type: "tool-input-delta", id: "c1", delta: '"top"}' },
    { type: "tool-input-end", id: "c1" },
    { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"text":"top"}' },
    { type: "tool-input-start", id: "c2", toolName: "write" },
    { type: "tool-input-delta", id: "c2", delta: '{"text": "unterminated' },
    { type: "tool-input-end", id: "c2" },
    finishPart("tool-calls", usageV3(1200, 90, { cacheRead: 1000, reasoning: 40 })),
  ];
  const model = new MockLanguageModelV3({ doStream: streamed(parts) });
  const deltas: string[] = [];
  const response = await aiSdkModel(model, { stream: true }).generate(
    requestOf(),
    quiet((delta) => deltas.push(delta)),
  );
  assert.deepEqual(deltas, ["Reading", " the ", "shelf."]);
  assert.equal(model.doStreamCalls.length, 1);
  assert.equal(model.doGenerateCalls.length, 0);
  assert.deepEqual(response, {
    calls: [
      { id: "c1", tool: "read", args: { text: "top" } },
      { id: "c2", tool: "write", args: '{"text": "unterminated', invalidJson: true },
    ],
    text: "Reading the shelf.",
    providerState: [
      { type: "reasoning", text: "Count first.", providerOptions: { anthropic: { signature: "sig-9" } } },
    ],
    usage: { inputTokens: 1200, outputTokens: 90, cacheReadTokens: 1000, reasoningTokens: 40 },
    finish: "tool_calls",
  });
});

test("a streamed hand-back call is the answer's handBack", async () => {
  const model = new MockLanguageModelV3({
    doStream: streamed([
      { type: "tool-call", toolCallId: "h1", toolName: "hand_back", input: '{"output":"three"}' },
      finishPart("tool-calls"),
    ]),
  });
  const response = await aiSdkModel(model, { stream: true }).generate(
    requestOf([], { output: { type: "string" } }),
    quiet(),
  );
  assert.deepEqual(response.calls, []);
  assert.equal(response.handBack, "three");
  assert.equal(response.handBackId, "h1");
});

test("an error part rejects the call with the provider's error", async () => {
  const model = new MockLanguageModelV3({
    doStream: streamed([
      { type: "text-delta", id: "t1", delta: "Half" },
      { type: "error", error: new Error("overloaded_error: Overloaded") },
      finishPart("stop"),
    ]),
  });
  const deltas: string[] = [];
  await assert.rejects(
    aiSdkModel(model, { stream: true }).generate(
      requestOf(),
      quiet((delta) => deltas.push(delta)),
    ),
    /overloaded_error: Overloaded/,
  );
  assert.deepEqual(deltas, ["Half"]);
  const plainError = new MockLanguageModelV3({
    doStream: streamed([{ type: "error", error: { message: "bad gateway" } }]),
  });
  await assert.rejects(aiSdkModel(plainError, { stream: true }).generate(requestOf(), quiet()), /bad gateway/);
});

test("a stream that ends without a finish part rejects: an answer cut short is not acted on", async () => {
  const model = new MockLanguageModelV3({
    doStream: streamed([{ type: "tool-call", toolCallId: "c1", toolName: "write", input: '{"text":"A"}' }]),
  });
  await assert.rejects(aiSdkModel(model, { stream: true }).generate(requestOf(), quiet()), /without a finish part/);
});

test("an abort in the middle of a stream rejects the call and cancels the stream", async () => {
  let cancelled: unknown = "not cancelled";
  let sent!: () => void;
  const firstDeltaSent = new Promise<void>((resolve) => (sent = resolve));
  const model = new MockLanguageModelV3({
    doStream: () =>
      Promise.resolve({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "text-delta", id: "t1", delta: "Once upon" });
            sent();
            // Never closes: the model stalls mid-answer.
          },
          cancel(reason) {
            cancelled = reason;
          },
        }),
      }),
  });
  const controller = new AbortController();
  const deltas: string[] = [];
  let gotDelta!: () => void;
  const deltaSeen = new Promise<void>((resolve) => (gotDelta = resolve));
  const pending = aiSdkModel(model, { stream: true }).generate(requestOf(), {
    signal: controller.signal,
    onText: (delta) => {
      deltas.push(delta);
      gotDelta();
    },
  });
  await firstDeltaSent;
  await deltaSeen;
  controller.abort();
  await assert.rejects(pending, (error: unknown) => error instanceof Error && error.name === "AbortError");
  assert.deepEqual(deltas, ["Once upon"]);
  assert.equal((cancelled as Error).name, "AbortError");
  assert.equal(model.doStreamCalls[0]?.abortSignal, controller.signal);
});
