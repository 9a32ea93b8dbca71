// openaiChat driving a whole run: Agent + modelPlanner over the real `openai` SDK against the
// loopback Chat Completions server, which refuses what the real API would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, modelPlanner, tool } from "../../../src/index.js";
import { MODES, mode, withLoopback } from "../support/loopback-test.js";
import { openaiChatHarness } from "./chat-harness.js";
import { answeredIds } from "../support/read-request.js";

const read = tool({
  name: "read",
  description: "Reads a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: ({ path }: { path: string }) => `contents of ${path}`,
});

for (const stream of MODES) {
  test(`a run takes every call of an answer, answers each call id, and finishes on the text (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply(
        {
          type: "answer",
          text: "Reading both.",
          calls: [
            { id: "call_1", tool: "read", arguments: '{"path":"a.txt"}' },
            { id: "call_2", tool: "read", arguments: '{"path": "b.txt"' },
          ],
          usage: { input: 100, output: 20, cacheRead: 60 },
        },
        { type: "answer", text: "Both are read." },
      );
      const model = openaiChatHarness.client(server.url, { stream, price: { input: 1, output: 10, cacheRead: 0.1 } });
      const agent = new Agent({ tools: [read], planner: modelPlanner({ model, purpose: "You read files." }) });
      const deltas: string[] = [];
      agent.on("text", ({ delta }) => deltas.push(delta));
      const state = await agent.run("Read a.txt and b.txt");
      assert.deepEqual(server.refusals, []);
      assert.equal(state.status, "completed");
      assert.equal(state.answer, "Both are read.");
      assert.equal(server.requests.length, 2);
      const second = openaiChatHarness.read(server.requests[1] ?? null);
      assert.equal(second.system, "You read files.");
      assert.deepEqual(second.calls, [
        { id: "call_1", tool: "read", arguments: '{"path":"a.txt"}' },
        { id: "call_2", tool: "read", arguments: '{"path": "b.txt"' },
      ]);
      assert.deepEqual(answeredIds(second), ["call_1", "call_2"]);
      assert.match(second.results[0]?.content ?? "", /contents of a\.txt/);
      assert.deepEqual(deltas.join(""), stream ? "Reading both.Both are read." : "");
      assert.ok(Math.abs(state.usage.cost - (40 * 1 + 60 * 0.1 + 20 * 10) / 1e6) < 1e-15);
    });
  });
}

for (const stream of MODES) {
  test(`a skill's output schema is offered as the hand-back tool, and its call finishes the work (${mode(stream)})`, async () => {
    await withLoopback(openaiChatHarness, async (server) => {
      server.reply(
        { type: "answer", calls: [{ id: "call_h1", tool: "hand_back", arguments: '{"output":"short"}' }] },
        { type: "answer", calls: [{ id: "call_h2", tool: "hand_back", arguments: '{"output":"a summary of a.txt"}' }] },
      );
      const model = openaiChatHarness.client(server.url, { stream });
      const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
      const outcome = await agent.do(
        {
          name: "summarize",
          tools: ["read"],
          output: { type: "string" },
          brief: (path: string) => `Summarize ${path}.`,
          check: (output: string) => (output.length < 10 ? "Too short." : null),
        },
        "a.txt",
      );
      assert.deepEqual(server.refusals, []);
      assert.equal(outcome.done, true);
      assert.equal(outcome.output, "a summary of a.txt");
      const second = openaiChatHarness.read(server.requests[1] ?? null);
      assert.deepEqual(second.tools, ["read", "hand_back"]);
      assert.deepEqual(second.calls, [{ id: "call_h1", tool: "hand_back", arguments: '{"output":"short"}' }]);
      assert.deepEqual(answeredIds(second), ["call_h1"]);
      assert.match(second.results[0]?.content ?? "", /Too short/);
    });
  });
}

test("a 429 from the API fails the run as model_failed with the status and the provider's message, charging nothing", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
    server.reply({ type: "error", status: 429, message: "Rate limit reached for gpt-loopback." });
    const model = openaiChatHarness.client(server.url, { stream: true, price: { input: 1, output: 1 } });
    const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
    const state = await agent.run("Read a.txt");
    assert.equal(state.status, "failed");
    assert.equal(state.failure?.code, "model_failed");
    assert.match(state.failure?.message ?? "", /429 Rate limit reached for gpt-loopback\./);
    assert.equal(state.usage.cost, 0);
    assert.equal(server.requests.length, 1);
  });
});

test("aborting a run while the model streams stops the HTTP request in the middle of the stream", async () => {
  await withLoopback(openaiChatHarness, async (server) => {
    server.reply({ type: "stall", text: "Let me think about this for a long while" });
    const model = openaiChatHarness.client(server.url, { stream: true });
    const agent = new Agent({ tools: [read], planner: modelPlanner({ model }) });
    const controller = new AbortController();
    agent.on("text", () => controller.abort());
    const state = await agent.run("Read a.txt", { signal: controller.signal });
    await server.stallClosed();
    assert.equal(state.status, "stopped");
    assert.equal(state.stopReason, "cancelled");
    assert.equal(server.closedEarly, 1);
    assert.equal(state.usage.cost, 0);
  });
});
