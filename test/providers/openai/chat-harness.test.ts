// The loopback Chat Completions server itself: it refuses, with a 400 and OpenAI's error body, what
// the real API refuses, so an adapter test that passes there can fail here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withLoopback } from "../support/loopback-test.js";
import { openaiChatHarness } from "./chat-harness.js";

const user = { role: "user", content: "hi" };
const readTool = { type: "function", function: { name: "read", parameters: { type: "object" } } };
const call = (id: string, args: unknown = "{}", type = "function") => ({
  id,
  type,
  function: { name: "read", arguments: args },
});

const refused: [string, Record<string, unknown>, RegExp][] = [
  [
    "an unknown top-level field",
    { model: "m", messages: [user], reasoning: {} },
    /Unrecognized request argument supplied: reasoning/,
  ],
  ["no messages", { model: "m", messages: [] }, /'messages': empty array/],
  ["no model", { messages: [user] }, /must provide a model/],
  [
    "parallel_tool_calls without tools",
    { model: "m", messages: [user], parallel_tool_calls: true },
    /only allowed when 'tools'/,
  ],
  [
    "stream_options without stream",
    { model: "m", messages: [user], stream_options: { include_usage: true } },
    /only allowed when 'stream'/,
  ],
  ["an empty tools list", { model: "m", messages: [user], tools: [] }, /'tools': empty array/],
  [
    "a tool name with a space",
    { model: "m", messages: [user], tools: [{ type: "function", function: { name: "read file" } }] },
    /does not match pattern/,
  ],
  [
    "tool parameters that are not an object",
    { model: "m", messages: [user], tools: [{ type: "function", function: { name: "read", parameters: true } }] },
    /parameters': expected an object/,
  ],
  [
    "argument text that is not a string",
    {
      model: "m",
      messages: [
        user,
        { role: "assistant", content: null, tool_calls: [call("c1", {})] },
        { role: "tool", tool_call_id: "c1", content: "x" },
      ],
    },
    /arguments': expected a string/,
  ],
  [
    "a tool call whose type is not function",
    {
      model: "m",
      messages: [
        user,
        { role: "assistant", content: null, tool_calls: [call("c1", "{}", "custom")] },
        { role: "tool", tool_call_id: "c1", content: "x" },
      ],
    },
    /type': expected 'function'/,
  ],
  [
    "an empty tool_calls list",
    { model: "m", messages: [user, { role: "assistant", content: "a", tool_calls: [] }] },
    /tool_calls': empty array/,
  ],
  [
    "an assistant message with neither content nor calls",
    { model: "m", messages: [user, { role: "assistant", content: null }] },
    /content': expected a string, got null/,
  ],
  [
    "a call left unanswered at the end",
    {
      model: "m",
      messages: [
        user,
        { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
        { role: "tool", tool_call_id: "c1", content: "x" },
      ],
    },
    /did not have response messages: c2/,
  ],
  [
    "a tool message for another assistant's call",
    {
      model: "m",
      messages: [
        user,
        { role: "assistant", content: null, tool_calls: [call("c1")] },
        { role: "tool", tool_call_id: "c1", content: "x" },
        { role: "assistant", content: "ok" },
        { role: "tool", tool_call_id: "c1", content: "x" },
      ],
    },
    /must be a response to a preceeding message/,
  ],
  [
    "a call answered twice",
    {
      model: "m",
      messages: [
        user,
        { role: "assistant", content: null, tool_calls: [call("c1")] },
        { role: "tool", tool_call_id: "c1", content: "x" },
        { role: "tool", tool_call_id: "c1", content: "y" },
      ],
    },
    /answered twice/,
  ],
];

test("the loopback server refuses with a 400 and OpenAI's error body what the real API refuses", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
    for (const [what, body, reason] of refused) {
      const response = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 400, what);
      const answer = (await response.json()) as { error: { message: string; type: string } };
      assert.match(answer.error.message, reason, what);
      assert.equal(answer.error.type, "invalid_request_error", what);
    }
    assert.equal(server.refusals.length, refused.length);
  });
});

test("the loopback server accepts a full conversation and streams server-sent events ending in [DONE]", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
    server.reply({ type: "answer", text: "Done.", usage: { input: 10, output: 2, cacheRead: 4 } });
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "s" },
        user,
        { role: "assistant", content: null, tool_calls: [call("c1"), call("c2", "{bad")] },
        { role: "tool", tool_call_id: "c2", content: "not JSON" },
        { role: "tool", tool_call_id: "c1", content: "x" },
        { role: "assistant", content: "a" },
        user,
      ],
      tools: [readTool],
      parallel_tool_calls: false,
      max_completion_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    };
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = (await response.text()).split("\n\n").filter((event) => event !== "");
    assert.ok(events.every((event) => event.startsWith("data: ")));
    assert.equal(events.at(-1), "data: [DONE]");
    const last = JSON.parse(events.at(-2)?.slice(6) ?? "null") as {
      choices: unknown[];
      usage: Record<string, unknown>;
    };
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage.prompt_tokens, 10);
    assert.deepEqual(last.usage.prompt_tokens_details, { cached_tokens: 4, audio_tokens: 0 });
    assert.deepEqual(server.refusals, []);
  });
});

test("a request past the end of the script gets a 500 and is recorded", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [user] }),
    });
    assert.equal(response.status, 500);
    assert.deepEqual(server.refusals, ["A request came past the end of the script."]);
  });
});
