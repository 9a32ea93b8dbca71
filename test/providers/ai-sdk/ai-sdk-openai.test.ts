// aiSdkModel through a real AI SDK provider package: @ai-sdk/openai's chat model against the loopback
// Chat Completions server, which refuses what the real API would refuse.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ModelMessage, ModelRequest } from "../../../src/models/model-client.js";
import { MODES, mode, signal, withLoopback } from "../support/loopback-test.js";
import { AI_SDK_TEST_MODEL, aiSdkHarness } from "./harness.js";
import { toolDescription } from "./mock.js";

function ask(messages: ModelMessage[] = [], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You keep a shelf.",
    messages: [{ role: "user", content: "How many books are on the top shelf?" }, ...messages],
    tools: [toolDescription("read"), toolDescription("write")],
    ...extra,
  };
}

for (const stream of MODES) {
  test(`one tool call then text through @ai-sdk/openai, every request accepted by the server (${mode(stream)})`, async () => {
    await withLoopback(aiSdkHarness, async (server) => {
      server.reply(
        {
          type: "answer",
          calls: [{ id: "call_r", tool: "read", arguments: '{"text":"top"}' }],
          usage: { input: 1000, output: 60, cacheRead: 800, reasoning: 20 },
        },
        { type: "answer", text: "There are three books.", usage: { input: 1100, output: 8 } },
      );
      const model = aiSdkHarness.client(server.url, { stream, parallelToolCalls: false });
      assert.equal(model.name, `openai.chat:${AI_SDK_TEST_MODEL}`);
      const deltas: string[] = [];
      const first = await model.generate(ask(), { signal: signal(), onText: (delta) => deltas.push(delta) });
      assert.deepEqual(first.calls, [{ id: "call_r", tool: "read", args: { text: "top" } }]);
      assert.equal(first.finish, "tool_calls");
      assert.deepEqual(first.usage, { inputTokens: 1000, outputTokens: 60, cacheReadTokens: 800, reasoningTokens: 20 });
      const second = await model.generate(
        ask([
          { role: "assistant", calls: first.calls },
          { role: "tool", callId: "call_r", tool: "read", outcome: "executed", content: { books: 3 } },
        ]),
        { signal: signal(), onText: (delta) => deltas.push(delta) },
      );
      assert.equal(second.text, "There are three books.");
      assert.equal(second.finish, "stop");
      assert.deepEqual(second.calls, []);
      assert.equal(deltas.join(""), stream ? "There are three books." : "");
      if (stream) assert.ok(deltas.length > 1, "the text arrives in several deltas");

      assert.deepEqual(server.refusals, []);
      const [one, two] = server.requests.map((request) => aiSdkHarness.read(request));
      assert.ok(one && two);
      assert.equal(one.model, AI_SDK_TEST_MODEL);
      assert.equal(one.system, "You keep a shelf.");
      assert.deepEqual(one.tools, ["read", "write"]);
      assert.equal(one.stream, stream);
      assert.equal(one.parallelToolCalls, false);
      assert.deepEqual(two.calls, [{ id: "call_r", tool: "read", arguments: '{"text":"top"}' }]);
      assert.deepEqual(two.results, [{ callId: "call_r", content: '{"books":3}' }]);
      assert.deepEqual(two.userTexts, ["How many books are on the top shelf?"]);
    });
  });

  test(`malformed argument text, a refused call and a refused hand-back are answered on their ids (${mode(stream)})`, async () => {
    await withLoopback(aiSdkHarness, async (server) => {
      server.reply(
        {
          type: "answer",
          text: "Writing.",
          calls: [
            { id: "call_w", tool: "write", arguments: '{"text": "A' },
            { id: "call_x", tool: "write", arguments: '{"text":"B"}' },
          ],
        },
        { type: "answer", calls: [{ id: "call_h", tool: "hand_back", arguments: '{"output":2}' }] },
        { type: "answer", text: "Fine." },
      );
      const model = aiSdkHarness.client(server.url, { stream });
      const request = ask([], { output: { type: "integer" }, maxOutputTokens: 400 });
      const first = await model.generate(request, { signal: signal() });
      assert.deepEqual(first.calls, [
        { id: "call_w", tool: "write", args: '{"text": "A', invalidJson: true },
        { id: "call_x", tool: "write", args: { text: "B" } },
      ]);
      request.messages.push(
        { role: "assistant", text: "Writing.", calls: first.calls },
        {
          role: "tool",
          callId: "call_w",
          tool: "write",
          outcome: "invalid_arguments",
          content: "The arguments are not JSON.",
        },
        { role: "tool", callId: "call_x", tool: "write", outcome: "approval_denied", content: "Denied by alice." },
      );
      const second = await model.generate(request, { signal: signal() });
      assert.equal(second.handBack, 2);
      assert.equal(second.handBackId, "call_h");
      request.messages.push(
        { role: "assistant", calls: [], handBack: { id: "call_h", output: 2 } },
        { role: "tool", callId: "call_h", tool: "CountBooks", outcome: "answer_rejected", content: "There are 3." },
      );
      await model.generate(request, { signal: signal() });

      assert.deepEqual(server.refusals, []);
      const last = aiSdkHarness.read(server.requests[2]!);
      assert.deepEqual(last.tools, ["read", "write", "hand_back"]);
      assert.equal(last.maxOutputTokens, 400);
      // @ai-sdk/openai replays argument text that is not a JSON object as "{}" (the AI SDK's own choice).
      assert.deepEqual(last.calls, [
        { id: "call_w", tool: "write", arguments: "{}" },
        { id: "call_x", tool: "write", arguments: '{"text":"B"}' },
        { id: "call_h", tool: "hand_back", arguments: '{"output":2}' },
      ]);
      assert.deepEqual(last.results, [
        { callId: "call_w", content: "The arguments are not JSON." },
        { callId: "call_x", content: "Denied by alice." },
        { callId: "call_h", content: "There are 3." },
      ]);
    });
  });

  test(`a 429 and a 500 reject with the provider's error (${mode(stream)})`, async () => {
    await withLoopback(aiSdkHarness, async (server) => {
      server.reply(
        { type: "error", status: 429, message: "Rate limit reached for requests" },
        { type: "error", status: 500, message: "The server had an error" },
      );
      const model = aiSdkHarness.client(server.url, { stream });
      await assert.rejects(model.generate(ask(), { signal: signal() }), (error: unknown) => {
        return (error as { statusCode?: number }).statusCode === 429 && /Rate limit/.test((error as Error).message);
      });
      await assert.rejects(model.generate(ask(), { signal: signal() }), (error: unknown) => {
        return (error as { statusCode?: number }).statusCode === 500;
      });
      assert.equal(server.requests.length, 2, "one request each: the adapter does not retry");
      assert.deepEqual(server.refusals, []);
    });
  });
}

test("an abort in the middle of a stream rejects the call and closes the connection", async () => {
  await withLoopback(aiSdkHarness, async (server) => {
    server.reply({ type: "stall", text: "Counting the books one by one" });
    const model = aiSdkHarness.client(server.url, { stream: true });
    const controller = new AbortController();
    let firstDelta!: () => void;
    const deltaSeen = new Promise<void>((resolve) => (firstDelta = resolve));
    const pending = model.generate(ask(), { signal: controller.signal, onText: () => firstDelta() });
    await deltaSeen;
    controller.abort();
    await assert.rejects(pending, (error: unknown) => error instanceof Error && error.name === "AbortError");
    await server.stallClosed();
    assert.deepEqual(server.refusals, []);
  });
});
