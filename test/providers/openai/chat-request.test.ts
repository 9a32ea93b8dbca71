// openaiChat's request bodies at the port level: the real `openai` SDK against the loopback Chat
// Completions server, which refuses what the real API would; streamed and not.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { ModelRequest } from "../../../src/index.js";
import { openaiChatHarness } from "./chat-harness.js";
import { CHAT_TEST_MODEL } from "./chat-client-module.js";
import { MODES, mode, signal, withLoopback } from "../support/loopback-test.js";
import { describeTool } from "../support/describe-tool.js";
import { ask } from "./chat-fixtures.js";
import { answeredIds } from "../support/read-request.js";

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
    await withLoopback(openaiChatHarness, async (server) => {
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
      assert.deepEqual(answeredIds(read), ["call_a", "call_b", "call_h"]);
      assert.deepEqual(read.userTexts, ["Count the lines.", "Hand the count back with the tool."]);
      assert.equal(read.system, "You read files.");
      assert.equal(read.stream, stream);
      assert.equal(read.parallelToolCalls, false);
      assert.equal(read.maxOutputTokens, 500);
    });
  });

  test(`sends no tools, parallel_tool_calls or max_completion_tokens when there is nothing to send (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply({ type: "answer", text: "ok" });
      const model = openaiChatHarness.client(server.url, { stream, parallelToolCalls: true });
      await model.generate(ask(), { signal: signal() });
      assert.deepEqual(server.refusals, []);
      const keys = Object.keys(server.requests[0] as object).sort();
      assert.deepEqual(keys, stream ? ["messages", "model", "stream", "stream_options"] : ["messages", "model"]);
    });
  });

  test(`the server refuses a tool call left unanswered and a tool message answering no call (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
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
}
