import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { isLeashError } from "../../../src/index.js";
import { anthropicMessages } from "../../../src/providers/anthropic/index.js";
import type { AnthropicMessagesOptions } from "../../../src/providers/anthropic/index.js";
import { HARNESS_MODEL, anthropicHarness } from "./harness.js";
import { MODES, mode } from "../support/loopback-test.js";
import { loopback, noAbort, taskRequest } from "./support.js";

const sdk = (url: string): Anthropic => new Anthropic({ baseURL: url, apiKey: "loopback-key", maxRetries: 0 });
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const asks = (id: string, input: unknown = { path: "a" }) => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "read_page", input }],
});
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "A" });
const tools = [{ name: "read_page", input_schema: { type: "object", properties: {} } }];

// Bodies the real Messages API answers 400 to, each with what the refusal must say.
const refused: [string, Record<string, unknown>, RegExp][] = [
  [
    "a tool_use no tool_result answers",
    { messages: [user("go"), asks("toolu_1"), user("and?")] },
    /without `tool_result`/,
  ],
  [
    "a tool_result after text in its turn",
    {
      messages: [
        user("go"),
        asks("toolu_1"),
        { role: "user", content: [{ type: "text", text: "x" }, result("toolu_1")] },
      ],
    },
    /must come first/,
  ],
  [
    "a tool_result for an id the previous turn never asked",
    { messages: [user("go"), asks("toolu_1"), { role: "user", content: [result("toolu_1"), result("toolu_2")] }] },
    /unexpected `tool_use_id`/,
  ],
  ["a tool_use input that is not an object", { messages: [user("go"), asks("toolu_1", "{}")] }, /valid dictionary/],
  ["a tool name the API does not allow", { tools: [{ ...tools[0], name: "read page" }] }, /tools\.0\.name/],
  [
    "disable_parallel_tool_use without tools",
    { tools: [], tool_choice: { type: "auto", disable_parallel_tool_use: true } },
    /only be specified when tools/,
  ],
  ["a field the API does not know", { parallel_tool_calls: false }, /parallel_tool_calls: Extra inputs/],
  ["a missing max_tokens", { max_tokens: undefined }, /max_tokens/],
  ["a first message that is not the user's", { messages: [asks("toolu_1"), user("x")] }, /first message/],
  [
    "a thinking block the server never signed",
    {
      messages: [
        user("go"),
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "forged" },
            { type: "text", text: "ok" },
          ],
        },
        user("more"),
      ],
    },
    /signature/,
  ],
];

for (const [what, change, reason] of refused) {
  test(`the loopback server refuses, as the API does, ${what}`, async (t) => {
    const server = await loopback(t);
    const body = { model: HARNESS_MODEL, max_tokens: 64, messages: [user("go")], tools, ...change };
    await assert.rejects(sdk(server.url).messages.create(body as never), Anthropic.BadRequestError);
    assert.equal(server.refusals.length, 1);
    assert.match(server.refusals[0]!, reason);
  });
}

test("a conversation that leaves a call unanswered is refused by the server, and the adapter rejects", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: false });
  const request = taskRequest("Read a.");
  request.messages.push({ role: "assistant", calls: [{ id: "toolu_1", tool: "read_page", args: { path: "a" } }] });
  await assert.rejects(model.generate(request, noAbort()), { status: 400 });
  assert.match(server.refusals[0] ?? "", /toolu_1/);
});

for (const stream of MODES) {
  for (const [status, type] of [
    [429, Anthropic.RateLimitError],
    [500, Anthropic.InternalServerError],
  ] as const) {
    test(`a ${status} rejects with the SDK's error and is asked once with maxRetries 0 (${mode(stream)})`, async (t) => {
      const server = await loopback(t);
      const model = anthropicHarness.client(server.url, { stream });
      server.reply({ type: "error", status, message: `loopback says ${status}` });
      await assert.rejects(model.generate(taskRequest("Hi."), noAbort()), (error: unknown) => {
        assert.ok(error instanceof type);
        assert.equal(error.status, status);
        assert.match(error.message, new RegExp(`loopback says ${status}`));
        return true;
      });
      assert.equal(server.requests.length, 1);
      assert.deepEqual(server.refusals, []);
    });
  }
}

test("an error event in the middle of a stream rejects", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: true });
  server.reply({ type: "stream_error", text: "Half an ans", error: "overloaded_error" });
  await assert.rejects(model.generate(taskRequest("Hi."), noAbort()), /overloaded/);
});

test("an abort in the middle of a stream rejects, and the server sees the connection close", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: true });
  server.reply({ type: "stall", text: "I will now think for a very long time" });
  const controller = new AbortController();
  const deltas: string[] = [];
  const call = model.generate(taskRequest("Think."), {
    signal: controller.signal,
    onText: (delta) => {
      deltas.push(delta);
      controller.abort();
    },
  });
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof Error);
    assert.match(error.name, /Abort/);
    return true;
  });
  await server.stallClosed();
  assert.ok(server.closedEarly >= 1);
  assert.ok(deltas.length >= 1);
});

test("a signal aborted before the call rejects without an answer", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: false });
  server.reply({ type: "answer", text: "never read" });
  await assert.rejects(model.generate(taskRequest("Hi."), { signal: AbortSignal.abort() }), /abort/i);
});

test("a missing or bad maxTokens, model or thinking throws invalid_option when the adapter is made", () => {
  const client = sdk("http://127.0.0.1:9");
  const bad: unknown[] = [
    { model: HARNESS_MODEL },
    { model: HARNESS_MODEL, maxTokens: 0 },
    { model: HARNESS_MODEL, maxTokens: 1.5 },
    { model: HARNESS_MODEL, maxTokens: "1024" },
    { maxTokens: 1024 },
    { model: HARNESS_MODEL, maxTokens: 1024, thinking: "on" },
    { model: HARNESS_MODEL, maxTokens: 1024, stream: "yes" },
  ];
  for (const options of bad)
    assert.throws(
      () => anthropicMessages(client, options as AnthropicMessagesOptions),
      (error: unknown) => isLeashError(error, "invalid_option"),
      JSON.stringify(options),
    );
  assert.throws(
    () => anthropicMessages({} as never, { model: HARNESS_MODEL, maxTokens: 1 }),
    (error: unknown) => isLeashError(error, "invalid_option"),
  );
});
