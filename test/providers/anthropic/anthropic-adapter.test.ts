import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { ModelRequest } from "../../../src/index.js";
import { anthropicMessages } from "../../../src/providers/anthropic/index.js";
import { HARNESS_MODEL, anthropicHarness } from "./harness.js";
import { MODES, mode } from "../support/loopback-test.js";
import { bodyOf, loopback, noAbort, readTool, taskRequest, turnsOf } from "./support.js";

for (const stream of MODES) {
  test(`a conversation goes out as the API takes it: system, tools and hand-back, paired tool results, merged user turn (${mode(stream)})`, async (t) => {
    const server = await loopback(t);
    const model = anthropicHarness.client(server.url, { stream });
    server.reply({
      type: "answer",
      text: "All read.",
      calls: [{ id: "toolu_9", tool: "hand_back", arguments: '{"summary":"two pages"}' }],
    });
    const request: ModelRequest = taskRequest("Read a and b.", {
      output: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
      maxOutputTokens: 256,
      messages: [
        { role: "user", content: "Read a and b." },
        {
          role: "assistant",
          text: "Reading both.",
          calls: [
            { id: "toolu_1", tool: "read_page", args: { path: "a" } },
            { id: "toolu_2", tool: "read_page", args: { path: "b" } },
          ],
        },
        { role: "tool", callId: "toolu_1", tool: "read_page", outcome: "executed", content: { page: "A" } },
        { role: "tool", callId: "toolu_2", tool: "read_page", outcome: "approval_denied", content: "Denied by Ada." },
        { role: "user", content: "Hand back what you have." },
      ],
    });
    const response = await model.generate(request, noAbort());
    assert.deepEqual(server.refusals, []);
    assert.deepEqual(response.handBack, { summary: "two pages" });
    assert.equal(response.handBackId, "toolu_9");
    assert.deepEqual(response.calls, []);
    assert.equal(response.text, "All read.");
    assert.equal(response.finish, "tool_calls");

    const read = anthropicHarness.read(server.requests[0]!);
    assert.equal(read.model, HARNESS_MODEL);
    assert.equal(read.system, "You read pages with care.");
    assert.deepEqual(read.tools, ["read_page", "hand_back"]);
    assert.deepEqual(read.calls, [
      { id: "toolu_1", tool: "read_page", arguments: '{"path":"a"}' },
      { id: "toolu_2", tool: "read_page", arguments: '{"path":"b"}' },
    ]);
    assert.deepEqual(read.results, [
      { callId: "toolu_1", content: '{"page":"A"}' },
      { callId: "toolu_2", content: "Denied by Ada." },
    ]);
    assert.deepEqual(read.userTexts, ["Read a and b.", "Hand back what you have."]);
    assert.equal(read.maxOutputTokens, 256);
    assert.equal(read.stream, stream);
    assert.equal(read.parallelToolCalls, undefined);

    const body = bodyOf(server, 0);
    assert.deepEqual(turnsOf(server, 0), [
      { role: "user", types: ["text"] },
      { role: "assistant", types: ["text", "tool_use", "tool_use"] },
      { role: "user", types: ["tool_result", "tool_result", "text"] },
    ]);
    const results = (body.messages as { content: Record<string, unknown>[] }[])[2]!.content;
    assert.equal(results[0]!.is_error, undefined);
    assert.equal(results[1]!.is_error, true);
    const tools = body.tools as Record<string, unknown>[];
    assert.deepEqual(tools[0], {
      name: "read_page",
      description: readTool.description,
      input_schema: readTool.parameters,
    });
    assert.equal("tool_choice" in body, false);
  });
}

test("max_tokens is the adapter's maxTokens unless the request gives maxOutputTokens", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: false });
  server.reply({ type: "answer", text: "ok" });
  await model.generate(taskRequest("Hi."), noAbort());
  assert.equal(anthropicHarness.read(server.requests[0]!).maxOutputTokens, 1024);
});

test("parallelToolCalls false sends disable_parallel_tool_use, and only when tools are sent", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: false, parallelToolCalls: false });
  server.reply({ type: "answer", text: "one" }, { type: "answer", text: "two" });
  await model.generate(taskRequest("With tools."), noAbort());
  await model.generate(taskRequest("Without tools.", { tools: [] }), noAbort());
  assert.deepEqual(server.refusals, []);
  assert.deepEqual(bodyOf(server, 0).tool_choice, { type: "auto", disable_parallel_tool_use: true });
  assert.equal(anthropicHarness.read(server.requests[0]!).parallelToolCalls, false);
  assert.equal("tool_choice" in bodyOf(server, 1), false);
  assert.equal("tools" in bodyOf(server, 1), false);
});

for (const stream of MODES) {
  test(`a thinking block comes back as providerState and goes back verbatim, first in its assistant turn (${mode(stream)})`, async (t) => {
    const server = await loopback(t);
    const client = new Anthropic({ baseURL: server.url, apiKey: "loopback-key", maxRetries: 0 });
    const thinking = { type: "enabled", budget_tokens: 512 };
    const model = anthropicMessages(client, { model: HARNESS_MODEL, maxTokens: 2048, stream, thinking });
    const reasoning = { text: "Page a first, it is short.", signature: "EqQBCkYIBxgCKkDsig+/a==" };
    server.reply(
      {
        type: "answer",
        reasoning,
        text: "Reading a.",
        calls: [{ id: "toolu_1", tool: "read_page", arguments: '{"path":"a"}' }],
      },
      { type: "answer", text: "Done." },
    );
    const first = await model.generate(taskRequest("Read a."), noAbort());
    const block = { type: "thinking", thinking: reasoning.text, signature: reasoning.signature };
    assert.deepEqual(first.providerState, [block]);
    assert.deepEqual(first.calls, [{ id: "toolu_1", tool: "read_page", args: { path: "a" } }]);

    const again = taskRequest("Read a.");
    again.messages.push(
      { role: "assistant", text: first.text, calls: first.calls, providerState: first.providerState },
      { role: "tool", callId: "toolu_1", tool: "read_page", outcome: "executed", content: "A" },
    );
    const second = await model.generate(again, noAbort());
    assert.deepEqual(server.refusals, []);
    assert.equal(second.text, "Done.");
    assert.equal(second.providerState, undefined);
    assert.deepEqual(bodyOf(server, 1).thinking, thinking);
    assert.deepEqual(turnsOf(server, 1)[1], { role: "assistant", types: ["thinking", "text", "tool_use"] });
    assert.deepEqual(anthropicHarness.read(server.requests[1]!).providerState, [block]);

    const altered = taskRequest("Read a.");
    altered.messages.push(
      { role: "assistant", calls: first.calls, providerState: [{ ...block, thinking: "Page b first." }] },
      { role: "tool", callId: "toolu_1", tool: "read_page", outcome: "executed", content: "A" },
    );
    await assert.rejects(model.generate(altered, noAbort()), { status: 400 });
    assert.match(server.refusals[0] ?? "", /signature/);
  });
}

test("malformed streamed argument JSON is a call with invalidJson that goes back verbatim as { _invalid_json }", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: true });
  const malformed = '{"path": "a", ';
  server.reply(
    { type: "answer", calls: [{ id: "toolu_1", tool: "read_page", arguments: malformed }] },
    { type: "answer", text: "Sorry." },
  );
  const first = await model.generate(taskRequest("Read a."), noAbort());
  assert.deepEqual(first.calls, [{ id: "toolu_1", tool: "read_page", args: malformed, invalidJson: true }]);
  assert.equal(first.finish, "tool_calls");

  const again = taskRequest("Read a.");
  again.messages.push(
    { role: "assistant", calls: first.calls },
    { role: "tool", callId: "toolu_1", tool: "read_page", outcome: "invalid_arguments", content: "Not JSON." },
  );
  await model.generate(again, noAbort());
  assert.deepEqual(server.refusals, []);
  const sent = (bodyOf(server, 1).messages as { content: Record<string, unknown>[] }[])[1]!.content[0];
  assert.deepEqual(sent, { type: "tool_use", id: "toolu_1", name: "read_page", input: { _invalid_json: malformed } });
  assert.equal(anthropicHarness.read(server.requests[1]!).calls[0]!.arguments, malformed);
  assert.equal((bodyOf(server, 1).messages as { content: Record<string, unknown>[] }[])[2]!.content[0]!.is_error, true);
});

test("streamed text arrives through onText delta by delta, in order, and joins into the text", async (t) => {
  const server = await loopback(t);
  const model = anthropicHarness.client(server.url, { stream: true });
  const text = "The workshop has three lathes and one drill press.";
  server.reply({ type: "answer", text });
  const deltas: string[] = [];
  const response = await model.generate(taskRequest("Describe."), {
    ...noAbort(),
    onText: (delta) => deltas.push(delta),
  });
  assert.ok(deltas.length >= 2, `expected several deltas, got ${deltas.length}`);
  assert.equal(deltas.join(""), text);
  assert.equal(response.text, text);
  assert.equal(response.finish, "stop");
});

for (const stream of MODES) {
  test(`usage with cache reads and writes is normalized: input counts them, Anthropic's input_tokens does not (${mode(stream)})`, async (t) => {
    const server = await loopback(t);
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const model = anthropicHarness.client(server.url, { stream, price });
    server.reply({ type: "answer", text: "ok", usage: { input: 1_000, output: 200, cacheRead: 600, cacheWrite: 100 } });
    const response = await model.generate(taskRequest("Hi."), noAbort());
    assert.deepEqual(response.usage, {
      inputTokens: 1_000,
      outputTokens: 200,
      cacheReadTokens: 600,
      cacheWriteTokens: 100,
    });
    assert.deepEqual(model.price, price);
  });
}
