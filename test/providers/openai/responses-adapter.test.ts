// openaiResponses at the model port: the real openai SDK against the loopback Responses API.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { JsonObject } from "../../../src/json/index.js";
import type { ModelRequest, ModelResponse } from "../../../src/models/model-client.js";
import { isLeashError } from "../../../src/errors/index.js";
import { openaiResponses } from "../../../src/providers/openai/responses.js";
import { describeTool } from "../support/describe-tool.js";
import type { LoopbackServer } from "../support/harness.js";
import { MODES, mode, signal } from "../support/loopback-test.js";
import { openaiResponsesHarness as harness, startResponsesServer } from "./responses-harness.js";

const readFile = describeTool("read_file", "Reads a file.");

const task = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: "You read files.",
  messages: [{ role: "user", content: "Summarize a.txt." }],
  tools: [readFile],
  ...extra,
});

for (const stream of MODES) {
  describe(`openaiResponses (${mode(stream)})`, () => {
    let server: LoopbackServer;
    before(async () => (server = await startResponsesServer()));
    after(() => server.close());
    const client = (options: { parallelToolCalls?: boolean } = {}) =>
      harness.client(server.url, { stream, ...options });
    const lastBody = (): JsonObject => server.requests.at(-1) as JsonObject;

    test("sends instructions, tools with the hand-back, replayed calls with their verbatim text and outputs, store and include, and the server takes it", async () => {
      server.reply({
        type: "answer",
        text: "Done.",
        calls: [{ id: "call_hb", tool: "hand_back", arguments: '{"output":"a says hi"}' }],
      });
      const request = task({
        output: { type: "string" },
        maxOutputTokens: 500,
        messages: [
          { role: "user", content: "Summarize a.txt." },
          {
            role: "assistant",
            text: "Reading both.",
            calls: [
              { id: "call_a", tool: "read_file", args: { path: "a.txt" } },
              { id: "call_b", tool: "read_file", args: "{path: b.txt", invalidJson: true },
            ],
          },
          { role: "tool", callId: "call_a", tool: "read_file", outcome: "executed", content: { text: "hi" } },
          { role: "tool", callId: "call_b", tool: "read_file", outcome: "invalid_arguments", content: "Not JSON." },
        ],
      });
      const response = await client({ parallelToolCalls: false }).generate(request, { signal: signal() });
      assert.deepEqual(server.refusals, []);
      const body = lastBody();
      assert.equal(body.instructions, "You read files.");
      assert.equal(body.store, false);
      assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
      assert.equal(body.parallel_tool_calls, false);
      assert.equal(body.max_output_tokens, 500);
      assert.equal(body.stream, stream ? true : undefined);
      assert.deepEqual(body.tools, [
        {
          type: "function",
          name: "read_file",
          description: "Reads a file.",
          parameters: readFile.parameters,
          strict: false,
        },
        {
          type: "function",
          name: "hand_back",
          description: "Call this once the work is done, to hand back the output in the required shape.",
          parameters: {
            type: "object",
            properties: { output: { type: "string" } },
            required: ["output"],
            additionalProperties: false,
          },
          strict: false,
        },
      ]);
      assert.deepEqual(body.input, [
        { role: "user", content: "Summarize a.txt." },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading both." }] },
        { type: "function_call", call_id: "call_a", name: "read_file", arguments: '{"path":"a.txt"}' },
        { type: "function_call", call_id: "call_b", name: "read_file", arguments: "{path: b.txt" },
        { type: "function_call_output", call_id: "call_a", output: '{"text":"hi"}' },
        { type: "function_call_output", call_id: "call_b", output: "Not JSON." },
      ]);
      const read = harness.read(body);
      assert.deepEqual(read.calls[1], { id: "call_b", tool: "read_file", arguments: "{path: b.txt" });
      assert.deepEqual(read.userTexts, ["Summarize a.txt."]);
      assert.deepEqual(response, {
        calls: [],
        text: "Done.",
        handBack: "a says hi",
        handBackId: "call_hb",
        usage: { inputTokens: 0, outputTokens: 0 },
        finish: "tool_calls",
      });
    });

    test("gives a call's id and arguments, malformed ones as their text, and a plain answer finishes with stop", async () => {
      server.reply(
        {
          type: "answer",
          calls: [
            { id: "call_1", tool: "read_file", arguments: '{"path":"a.txt"}' },
            { id: "call_2", tool: "read_file", arguments: '{"path": "b.txt"' },
          ],
        },
        { type: "answer", text: "All read." },
      );
      const first = await client().generate(task(), { signal: signal() });
      assert.deepEqual(first.calls, [
        { id: "call_1", tool: "read_file", args: { path: "a.txt" } },
        { id: "call_2", tool: "read_file", args: '{"path": "b.txt"', invalidJson: true },
      ]);
      assert.equal(first.finish, "tool_calls");
      const second = await client().generate(task({ tools: [] }), { signal: signal() });
      assert.equal(second.text, "All read.");
      assert.equal(second.finish, "stop");
      assert.equal(lastBody().tools, undefined);
      assert.deepEqual(server.refusals, []);
    });

    test("the server refuses a function_call left without its output and an output that answers no call", async () => {
      const unanswered = task({
        messages: [
          { role: "user", content: "Summarize a.txt." },
          { role: "assistant", calls: [{ id: "call_x", tool: "read_file", args: { path: "a.txt" } }] },
        ],
      });
      await assert.rejects(client().generate(unanswered, { signal: signal() }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 400);
        return true;
      });
      assert.equal(server.refusals.at(-1), "No tool output found for function call call_x.");
      const stray = task({
        messages: [
          { role: "user", content: "Summarize a.txt." },
          { role: "tool", callId: "call_y", tool: "read_file", outcome: "executed", content: "hi" },
        ],
      });
      await assert.rejects(client().generate(stray, { signal: signal() }), OpenAI.BadRequestError);
      assert.equal(server.refusals.at(-1), "No tool call found for function call output with call_id call_y.");
      server.refusals.length = 0;
    });

    test("a reasoning item comes back as provider state and goes back verbatim, right before its call", async () => {
      server.reply(
        {
          type: "answer",
          reasoning: { text: "a.txt first.", signature: `enc-${String(stream)}-1` },
          calls: [{ id: "call_r", tool: "read_file", arguments: '{"path":"a.txt"}' }],
        },
        { type: "answer", text: "It says hi." },
      );
      const first = await client().generate(task(), { signal: signal() });
      assert.ok(Array.isArray(first.providerState) && first.providerState.length === 2);
      const [item, place] = first.providerState as JsonObject[];
      assert.deepEqual(place, { type: "function_call", call_id: "call_r" });
      assert.match(item?.id as string, /^rs_/);
      assert.deepEqual(item, {
        id: item?.id,
        type: "reasoning",
        summary: [{ type: "summary_text", text: "a.txt first." }],
        encrypted_content: `enc-${String(stream)}-1`,
      });
      const next = (state: ModelResponse["providerState"]): ModelRequest =>
        task({
          messages: [
            { role: "user", content: "Summarize a.txt." },
            { role: "assistant", calls: first.calls, providerState: state },
            { role: "tool", callId: "call_r", tool: "read_file", outcome: "executed", content: "hi" },
          ],
        });
      const second = await client().generate(next(first.providerState), { signal: signal() });
      assert.equal(second.text, "It says hi.");
      assert.deepEqual(server.refusals, []);
      const body = lastBody();
      assert.deepEqual(harness.read(body).providerState, [item]);
      const input = body.input as JsonObject[];
      assert.deepEqual(input[1], item);
      assert.equal(input[2]?.call_id, "call_r");
      const forged = [{ ...item, encrypted_content: "forged" }];
      await assert.rejects(
        client().generate(next(forged as JsonObject[]), { signal: signal() }),
        OpenAI.BadRequestError,
      );
      assert.match(server.refusals.at(-1) ?? "", /could not be verified/);
      server.refusals.length = 0;
    });

    test("usage with cached and reasoning tokens is normalized", async () => {
      server.reply({
        type: "answer",
        text: "ok",
        usage: { input: 1200, output: 300, cacheRead: 1000, reasoning: 120 },
      });
      const response = await client().generate(task(), { signal: signal() });
      assert.deepEqual(response.usage, {
        inputTokens: 1200,
        outputTokens: 300,
        cacheReadTokens: 1000,
        reasoningTokens: 120,
      });
    });

    test("429 and 500 reject with the SDK's error, asked once with retries off", async () => {
      for (const status of [429, 500]) {
        server.reply({ type: "error", status, message: `loopback ${status}` });
        const before = server.requests.length;
        await assert.rejects(client().generate(task(), { signal: signal() }), (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError);
          assert.equal(error.status, status);
          assert.match(error.message, new RegExp(`loopback ${status}`));
          return true;
        });
        assert.equal(server.requests.length, before + 1);
      }
      assert.deepEqual(server.refusals, []);
    });
  });
}

describe("openaiResponses streaming", () => {
  let server: LoopbackServer;
  before(async () => (server = await startResponsesServer()));
  after(() => server.close());
  const client = () => harness.client(server.url, { stream: true });

  test("text deltas reach onText in order as the model writes", async () => {
    const text = "The file a.txt says hello to everyone who reads it.";
    server.reply({ type: "answer", text });
    const seen: string[] = [];
    const response = await client().generate(task(), { signal: signal(), onText: (delta) => seen.push(delta) });
    assert.ok(seen.length > 1, `expected several deltas, got ${seen.length}`);
    assert.equal(seen.join(""), text);
    assert.equal(response.text, text);
  });

  test("an abort in the middle of a stream rejects, and the server sees the connection closed", async () => {
    server.reply({ type: "stall", text: "Thinking about a.txt and b.txt" });
    const controller = new AbortController();
    const seen: string[] = [];
    const pending = client().generate(task(), {
      signal: controller.signal,
      onText: (delta) => {
        seen.push(delta);
        controller.abort(new Error("stopped by the test"));
      },
    });
    await assert.rejects(pending);
    await server.stallClosed();
    assert.ok(seen.length >= 1);
    assert.ok(server.closedEarly >= 1);
    assert.deepEqual(server.refusals, []);
  });
});

describe("openaiResponses options", () => {
  const sdk = new OpenAI({ apiKey: "sk-loopback", baseURL: "http://127.0.0.1:9/v1", maxRetries: 0 });
  const bad: [string, () => unknown][] = [
    ["no model", () => openaiResponses(sdk, {} as never)],
    ["an empty model", () => openaiResponses(sdk, { model: " " })],
    ["stream not a boolean", () => openaiResponses(sdk, { model: "m", stream: "yes" as never })],
    ["store not a boolean", () => openaiResponses(sdk, { model: "m", store: 1 as never })],
    ["a negative price", () => openaiResponses(sdk, { model: "m", price: { input: -1, output: 1 } })],
    ["a hand-back name with a space", () => openaiResponses(sdk, { model: "m", handBackTool: "hand back" })],
    ["a client without responses", () => openaiResponses({} as never, { model: "m" })],
  ];
  for (const [what, make] of bad)
    test(`throws invalid_option for ${what}`, () => {
      assert.throws(make, (error: unknown) => isLeashError(error, "invalid_option"));
    });

  test("keeps the price and names the model", () => {
    const model = openaiResponses(sdk, { model: "gpt-5-mini", price: { input: 0.25, output: 2 } });
    assert.deepEqual(model.price, { input: 0.25, output: 2 });
    assert.match(model.name, /gpt-5-mini/);
  });
});
