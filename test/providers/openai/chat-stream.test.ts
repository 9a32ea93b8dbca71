// openaiChat streaming at the port level: text deltas, tool calls assembled from chunks, aborts in the
// middle of a stream, and a stream cut short.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { isLeashError } from "../../../src/index.js";
import { openaiChatHarness } from "./chat-harness.js";
import { signal, withLoopback } from "../support/loopback-test.js";
import { startRawServer } from "../support/raw-server.js";
import { describeTool } from "../support/describe-tool.js";
import { ask } from "./chat-fixtures.js";

test("text deltas reach onText in order while the model writes, and join to the text", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
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
  await withLoopback(openaiChatHarness, async (server) => {
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
  await withLoopback(openaiChatHarness, async (server) => {
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
  await withLoopback(openaiChatHarness, async (server) => {
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

test("a stream that ends before the answer's finish reason rejects as model_failed, not as a short answer", async () => {
  // A server that drops the stream after one delta, as a proxy or a crashed server does.
  const chunk = {
    id: "c",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content: "Half" }, finish_reason: null }],
  };
  const server = await startRawServer(() => `data: ${JSON.stringify(chunk)}\n\n`);
  try {
    const deltas: string[] = [];
    const model = openaiChatHarness.client(`${server.origin}/v1`, { stream: true });
    await assert.rejects(
      model.generate(ask(), { signal: signal(), onText: (delta) => deltas.push(delta) }),
      (error: unknown) =>
        isLeashError(error, "model_failed") && /ended before the answer was finished/.test((error as Error).message),
    );
    assert.deepEqual(deltas, ["Half"]);
  } finally {
    await server.close();
  }
});
