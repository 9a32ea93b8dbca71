// openaiChat at the port level: the real `openai` SDK against the loopback Chat Completions server,
// streamed and not, with hand-written model requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { isLeashError } from "../../../src/index.js";
import type { ModelClient, ModelRequest, ToolDescription } from "../../../src/index.js";
import { openaiChat } from "../../../src/providers/openai/index.js";
import type { LoopbackServer } from "../support/harness.js";
import { openaiChatHarness } from "./chat-harness.js";
import { CHAT_TEST_MODEL } from "./chat-client-module.js";

const MODES = [false, true] as const;
const mode = (stream: boolean): string => (stream ? "streamed" : "not streamed");

function describeTool(name: string, description = ""): ToolDescription {
  return {
    name,
    description,
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    effect: "read",
    scopes: [],
    cost: 0,
    idempotent: true,
  };
}

const signal = (): AbortSignal => new AbortController().signal;

async function withServer(run: (server: LoopbackServer) => Promise<void>): Promise<void> {
  const server = await openaiChatHarness.start();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

const ask = (tools: ToolDescription[] = []): ModelRequest => ({
  system: "You help.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools,
});

// A conversation with every kind of message: calls (one with malformed argument text), their
// results, a refused hand-back on its own id, and the reason a plain-text answer was refused.
const conversation: ModelRequest = {
  system: "You read files.",
  tools: [describeTool("read", "Reads a file."), describeTool("hand_back")],
  output: { type: "number" },
  maxOutputTokens: 500,
  messages: [
    { role: "user", content: "Count the lines." },
    {
      role: "assistant",
      text: "Reading both.",
      calls: [
        { id: "call_a", tool: "read", args: { path: "a.txt" } },
        { id: "call_b", tool: "read", args: '{"path": "b.txt"', invalidJson: true },
      ],
    },
    { role: "tool", callId: "call_a", tool: "read", outcome: "executed", content: { lines: 3 } },
    { role: "tool", callId: "call_b", tool: "read", outcome: "invalid_arguments", content: "Arguments are not JSON." },
    { role: "assistant", calls: [], handBack: { id: "call_h", output: -1 } },
    { role: "tool", callId: "call_h", tool: "hand_back_2", outcome: "answer_rejected", content: "Must be positive." },
    { role: "assistant", text: "It is three.", calls: [] },
    { role: "user", content: "Hand the count back with the tool." },
  ],
};

for (const stream of MODES) {
  test(`sends the system message, tools, hand-back tool, replayed calls with verbatim malformed text and tool results, and the server accepts them (${mode(stream)})`, async () => {
    await withServer(async (server) => {
      server.reply({ type: "answer", text: "ok" });
      const model = openaiChatHarness.client(server.url, { stream, parallelToolCalls: false });
      await model.generate(conversation, { signal: signal() });
      assert.deepEqual(server.refusals, []);
      const body = server.requests[0] as Record<string, unknown>;
      const streamKeys = stream ? { stream: true, stream_options: { include_usage: true } } : {};
      const handBackParameters = {
        type: "object",
        properties: { output: { type: "number" } },
        required: ["output"],
        additionalProperties: false,
      };
      assert.deepEqual(body, {
        model: CHAT_TEST_MODEL,
        messages: [
          { role: "system", content: "You read files." },
          { role: "user", content: "Count the lines." },
          {
            role: "assistant",
            content: "Reading both.",
            tool_calls: [
              { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } },
              { id: "call_b", type: "function", function: { name: "read", arguments: '{"path": "b.txt"' } },
            ],
          },
          { role: "tool", tool_call_id: "call_a", content: '{"lines":3}' },
          { role: "tool", tool_call_id: "call_b", content: "Arguments are not JSON." },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_h", type: "function", function: { name: "hand_back_2", arguments: '{"output":-1}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_h", content: "Must be positive." },
          { role: "assistant", content: "It is three." },
          { role: "user", content: "Hand the count back with the tool." },
        ],
        tools: [
          {
            type: "function",
            function: { name: "read", description: "Reads a file.", parameters: conversation.tools[0]?.parameters },
          },
          { type: "function", function: { name: "hand_back", parameters: conversation.tools[1]?.parameters } },
          {
            type: "function",
            function: {
              name: "hand_back_2",
              description: (body.tools as { function: { description: string } }[])[2]?.function.description,
              parameters: handBackParameters,
            },
          },
        ],
        parallel_tool_calls: false,
        max_completion_tokens: 500,
        ...streamKeys,
      });
      const read = openaiChatHarness.read(server.requests[0] ?? null);
      assert.deepEqual(read.tools, ["read", "hand_back", "hand_back_2"]);
      assert.deepEqual(read.calls[1], { id: "call_b", tool: "read", arguments: '{"path": "b.txt"' });
      assert.deepEqual(
        read.results.map((result) => result.callId),
        ["call_a", "call_b", "call_h"],
      );
      assert.deepEqual(read.userTexts, ["Count the lines.", "Hand the count back with the tool."]);
      assert.equal(read.system, "You read files.");
      assert.equal(read.stream, stream);
      assert.equal(read.parallelToolCalls, false);
      assert.equal(read.maxOutputTokens, 500);
    });
  });

  test(`sends no tools, parallel_tool_calls or max_completion_tokens when there is nothing to send (${mode(stream)})`, async () => {
    await withServer(async (server) => {
      server.reply({ type: "answer", text: "ok" });
      const model = openaiChatHarness.client(server.url, { stream, parallelToolCalls: true });
      await model.generate(ask(), { signal: signal() });
      assert.deepEqual(server.refusals, []);
      const keys = Object.keys(server.requests[0] as object).sort();
      assert.deepEqual(keys, stream ? ["messages", "model", "stream", "stream_options"] : ["messages", "model"]);
    });
  });

  test(`the server refuses a tool call left unanswered and a tool message answering no call (${mode(stream)})`, async () => {
    await withServer(async (server) => {
      const model = openaiChatHarness.client(server.url, { stream });
      const unanswered: ModelRequest = {
        ...ask([describeTool("read")]),
        messages: [
          { role: "user", content: "Read both." },
          {
            role: "assistant",
            calls: [
              { id: "call_1", tool: "read", args: { path: "a" } },
              { id: "call_2", tool: "read", args: { path: "b" } },
            ],
          },
          { role: "tool", callId: "call_1", tool: "read", outcome: "executed", content: "A" },
          { role: "user", content: "Go on." },
        ],
      };
      await assert.rejects(model.generate(unanswered, { signal: signal() }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.match(error.message, /did not have response messages: call_2/);
        return true;
      });
      const stray: ModelRequest = {
        ...ask([describeTool("read")]),
        messages: [
          { role: "user", content: "Read." },
          { role: "tool", callId: "call_9", tool: "read", outcome: "executed", content: "A" },
        ],
      };
      await assert.rejects(model.generate(stray, { signal: signal() }), OpenAI.BadRequestError);
      assert.equal(server.refusals.length, 2);
      assert.match(server.refusals[1] ?? "", /must be a response to a preceeding message with 'tool_calls'/);
    });
  });

  test(`reads the text, the calls with their ids, malformed argument text as invalidJson and the finish reason (${mode(stream)})`, async () => {
    await withServer(async (server) => {
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
    await withServer(async (server) => {
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
    await withServer(async (server) => {
      server.reply({ type: "answer", calls: [{ id: "", tool: "read", arguments: '{"path":"a.txt"}' }] });
      const model = openaiChatHarness.client(server.url, { stream });
      const response = await model.generate(ask([describeTool("read")]), { signal: signal() });
      assert.deepEqual(response.calls, [{ tool: "read", args: { path: "a.txt" } }]);
    });
  });

  test(`usage with cached and reasoning tokens is normalized, prompt_tokens already counting the cached ones (${mode(stream)})`, async () => {
    await withServer(async (server) => {
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
    await withServer(async (server) => {
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

test("text deltas reach onText in order while the model writes, and join to the text", async () => {
  await withServer(async (server) => {
    const text = "The file has three lines, and the last one is empty.";
    server.reply({ type: "answer", text });
    const deltas: string[] = [];
    const model = openaiChatHarness.client(server.url, { stream: true });
    const response = await model.generate(ask(), { signal: signal(), onText: (delta) => deltas.push(delta) });
    assert.ok(deltas.length > 1, `expected several deltas, got ${deltas.length}`);
    assert.equal(deltas.join(""), text);
    assert.equal(response.text, text);
    assert.equal(response.finish, "stop");
  });
});

test("tool-call arguments split across chunks are put together again, per call index", async () => {
  await withServer(async (server) => {
    const first = { path: "notes/2026/december/summary.txt", lines: [1, 2, 3], note: "ünïcödé ✓" };
    const second = { path: "b.txt" };
    server.reply({
      type: "answer",
      calls: [
        { id: "call_long", tool: "read", arguments: JSON.stringify(first) },
        { id: "call_short", tool: "read", arguments: JSON.stringify(second) },
      ],
    });
    const model = openaiChatHarness.client(server.url, { stream: true });
    const response = await model.generate(ask([describeTool("read")]), { signal: signal() });
    assert.deepEqual(response.calls, [
      { id: "call_long", tool: "read", args: first },
      { id: "call_short", tool: "read", args: second },
    ]);
  });
});

test("aborting the signal mid-stream rejects the call and closes the connection the server holds open", async () => {
  await withServer(async (server) => {
    server.reply({ type: "stall", text: "I am about to say something long" });
    const controller = new AbortController();
    const deltas: string[] = [];
    const model = openaiChatHarness.client(server.url, { stream: true });
    const call = model.generate(ask(), {
      signal: controller.signal,
      onText: (delta) => {
        deltas.push(delta);
        controller.abort();
      },
    });
    await assert.rejects(call, (error: unknown) => {
      assert.equal((error as Error).name, "AbortError");
      return true;
    });
    await server.stallClosed();
    assert.equal(server.closedEarly, 1);
    assert.equal(deltas.length, 1);
  });
});

test("aborting the signal while waiting for a completion rejects the call and closes the request", async () => {
  await withServer(async (server) => {
    server.reply({ type: "stall", text: "" });
    const controller = new AbortController();
    const model = openaiChatHarness.client(server.url, { stream: false });
    const call = model.generate(ask(), { signal: controller.signal });
    const deadline = Date.now() + 30_000;
    while (server.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(call, OpenAI.APIUserAbortError);
    await server.stallClosed();
    assert.equal(server.closedEarly, 1);
  });
});

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
