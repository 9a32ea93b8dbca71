// openaiResponses keeps the order of an answer's output: reasoning items interleaved with calls go
// back each right before the call it came with (the real openai SDK against the loopback server).
import assert from "node:assert/strict";
import { test } from "node:test";
import OpenAI from "openai";
import type { Json, JsonObject } from "../../../src/json/index.js";
import type { ModelRequest } from "../../../src/models/model-client.js";
import type { ToolDescription } from "../../../src/tools/tool.js";
import { openaiResponsesHarness as harness, startResponsesServer } from "./responses-harness.js";

const look: ToolDescription = {
  name: "look",
  description: "Looks at a page.",
  parameters: { type: "object", properties: { page: { type: "string" } } },
  effect: "read",
  scopes: [],
  cost: 0,
  idempotent: true,
};

const signal = (): AbortSignal => new AbortController().signal;

const idsOf = (input: JsonObject[]): Json[] =>
  input.map((item) => (item.type === "reasoning" ? item.encrypted_content : (item.call_id ?? item.role)) ?? null);

for (const stream of [false, true]) {
  test(`reasoning items interleaved with calls go back in their places: rs_1, call_1, rs_2, call_2 (${stream ? "streamed" : "JSON"})`, async (t) => {
    const server = await startResponsesServer();
    t.after(() => server.close());
    const client = harness.client(server.url, { stream });
    server.reply(
      {
        type: "answer",
        reasoning: { text: "Page a first.", signature: "E1" },
        reasoningBefore: [{ callId: "call_2", text: "Now page b.", signature: "E2" }],
        calls: [
          { id: "call_1", tool: "look", arguments: '{"page":"a"}' },
          { id: "call_2", tool: "look", arguments: '{"page":"b"}' },
        ],
      },
      { type: "answer", text: "Both seen." },
    );
    const task = { role: "user", content: "Look at a and b." } as const;
    const request: ModelRequest = { system: "", messages: [task], tools: [look] };
    const first = await client.generate(request, { signal: signal() });
    assert.deepEqual(
      first.calls.map((call) => call.id),
      ["call_1", "call_2"],
    );
    const second = await client.generate(
      {
        ...request,
        messages: [
          task,
          { role: "assistant", calls: first.calls, providerState: first.providerState },
          { role: "tool", callId: "call_1", tool: "look", outcome: "executed", content: "A" },
          { role: "tool", callId: "call_2", tool: "look", outcome: "executed", content: "B" },
        ],
      },
      { signal: signal() },
    );
    assert.deepEqual(server.refusals, []);
    assert.equal(second.text, "Both seen.");
    const input = (server.requests[1] as JsonObject).input as JsonObject[];
    assert.deepEqual(idsOf(input), ["user", "E1", "call_1", "E2", "call_2", "call_1", "call_2"]);
    // Each reasoning item goes back exactly as the server gave it.
    const issued = (first.providerState as JsonObject[]).filter((item) => item.type === "reasoning");
    assert.deepEqual([input[1], input[3]], issued);
  });
}

test("the loopback Responses server refuses a reasoning item moved away from the call it came with", async (t) => {
  const server = await startResponsesServer();
  t.after(() => server.close());
  const client = harness.client(server.url, { stream: false });
  server.reply({
    type: "answer",
    reasoning: { text: "Page a first.", signature: "E1" },
    reasoningBefore: [{ callId: "call_2", text: "Now page b.", signature: "E2" }],
    calls: [
      { id: "call_1", tool: "look", arguments: "{}" },
      { id: "call_2", tool: "look", arguments: "{}" },
    ],
  });
  const task = { role: "user", content: "Look." } as const;
  const first = await client.generate({ system: "", messages: [task], tools: [look] }, { signal: signal() });
  const reasoning = (first.providerState as JsonObject[]).filter((item) => item.type === "reasoning");
  // Both reasoning items first, as an adapter that does not keep the order would send them.
  const request: ModelRequest = {
    system: "",
    tools: [look],
    messages: [
      task,
      { role: "assistant", calls: first.calls, providerState: reasoning },
      { role: "tool", callId: "call_1", tool: "look", outcome: "executed", content: "A" },
      { role: "tool", callId: "call_2", tool: "look", outcome: "executed", content: "B" },
    ],
  };
  await assert.rejects(client.generate(request, { signal: signal() }), OpenAI.BadRequestError);
  assert.match(server.refusals.at(-1) ?? "", /of type 'reasoning' was provided without its required following item/);
});
