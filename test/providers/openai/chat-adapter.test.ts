// openaiChat's answers at the port level: the real `openai` SDK against the loopback Chat
// Completions server, streamed and not, with hand-written model requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { isLeashError } from "../../../src/index.js";
import type { ModelClient } from "../../../src/index.js";
import { openaiChat } from "../../../src/providers/openai/index.js";
import { openaiChatHarness } from "./chat-harness.js";
import { MODES, mode, signal, withLoopback } from "../support/loopback-test.js";
import { describeTool } from "../support/describe-tool.js";
import { ask } from "./chat-fixtures.js";

for (const stream of MODES) {
  test(`reads the text, the calls with their ids, malformed argument text as invalidJson and the finish reason (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply({
        type: "answer",
        text: "Reading.",
        calls: [
          { id: "call_x1", tool: "read", arguments: '{"path":"a.txt"}' },
          { id: "call_x2", tool: "read", arguments: '{"path": "b' },
          { id: "call_x3", tool: "list", arguments: "" },
        ],
      });
      const model = openaiChatHarness.client(server.url, { stream });
      const response = await model.generate(ask([describeTool("read")]), { signal: signal() });
      assert.deepEqual(response, {
        calls: [
          { id: "call_x1", tool: "read", args: { path: "a.txt" } },
          { id: "call_x2", tool: "read", args: '{"path": "b', invalidJson: true },
          { id: "call_x3", tool: "list", args: {} },
        ],
        text: "Reading.",
        finish: "tool_calls",
        usage: { inputTokens: 0, outputTokens: 0 },
      });
    });
  });

  test(`a hand-back call becomes handBack with its call id, unwrapped from { output } (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply({
        type: "answer",
        calls: [{ id: "call_done", tool: "hand_back", arguments: '{"output":"three lines"}' }],
      });
      const model = openaiChatHarness.client(server.url, { stream });
      const response = await model.generate({ ...ask(), output: { type: "string" } }, { signal: signal() });
      assert.deepEqual(server.refusals, []);
      assert.equal(response.handBack, "three lines");
      assert.equal(response.handBackId, "call_done");
      assert.deepEqual(response.calls, []);
      assert.equal(response.text, undefined);
    });
  });

  test(`a call a compatible server gives no id comes without one, for the core to name (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply({ type: "answer", calls: [{ id: "", tool: "read", arguments: '{"path":"a.txt"}' }] });
      const model = openaiChatHarness.client(server.url, { stream });
      const response = await model.generate(ask([describeTool("read")]), { signal: signal() });
      assert.deepEqual(response.calls, [{ tool: "read", args: { path: "a.txt" } }]);
    });
  });

  test(`usage with cached and reasoning tokens is normalized, prompt_tokens already counting the cached ones (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply(
        { type: "answer", text: "a", usage: { input: 1_200, output: 300, cacheRead: 1_000, reasoning: 200 } },
        { type: "answer", text: "b", usage: { input: 50, output: 7 } },
      );
      const model = openaiChatHarness.client(server.url, { stream });
      const first = await model.generate(ask(), { signal: signal() });
      assert.deepEqual(first.usage, {
        inputTokens: 1_200,
        outputTokens: 300,
        cacheReadTokens: 1_000,
        reasoningTokens: 200,
      });
      const second = await model.generate(ask(), { signal: signal() });
      assert.deepEqual(second.usage, { inputTokens: 50, outputTokens: 7 });
    });
  });

  test(`a 429 and a 500 reject with the SDK's error, its status and the provider's message, asked once each (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply(
        { type: "error", status: 429, message: "Rate limit reached for requests." },
        { type: "error", status: 500, message: "The server had an error." },
      );
      const model = openaiChatHarness.client(server.url, { stream });
      await assert.rejects(model.generate(ask(), { signal: signal() }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.RateLimitError);
        assert.equal(error.status, 429);
        assert.match(error.message, /429 Rate limit reached for requests\./);
        return true;
      });
      await assert.rejects(model.generate(ask(), { signal: signal() }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError);
        assert.match(error.message, /500 The server had an error\./);
        return true;
      });
      assert.equal(server.requests.length, 2);
      assert.deepEqual(server.refusals, []);
    });
  });
}

test("the client's name is the model and its price the option", () => {
  const client = new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "test-key", maxRetries: 0 });
  const model: ModelClient = openaiChat(client, {
    model: "gpt-5-mini",
    price: { input: 0.25, output: 2, cacheRead: 0.025 },
  });
  assert.equal(model.name, "gpt-5-mini");
  assert.deepEqual(model.price, { input: 0.25, output: 2, cacheRead: 0.025 });
  assert.equal(openaiChat(client, { model: "gpt-5-mini" }).price, undefined);
});

test("an invalid option or client throws invalid_option when the adapter is made", () => {
  const client = new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "test-key", maxRetries: 0 });
  const invalid = [
    () => openaiChat(client, { model: "" }),
    () => openaiChat(client, undefined as never),
    () => openaiChat(client, { model: "m", stream: "yes" as never }),
    () => openaiChat(client, { model: "m", parallelToolCalls: 1 as never }),
    () => openaiChat(client, { model: "m", price: { input: -1, output: 1 } }),
    () => openaiChat(client, { model: "m", handBackTool: "hand back" }),
    () => openaiChat({} as never, { model: "m" }),
  ];
  for (const make of invalid) assert.throws(make, (error: unknown) => isLeashError(error, "invalid_option"));
});
