// The loopback Responses API refuses what the real API refuses (so the adapter suite's checks can
// fail), and openaiResponses reads the parts of the wire a script cannot produce: an `error` event in
// a stream, an incomplete response, a failed one.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { isLeashError } from "../../../src/errors/index.js";
import type { Json } from "../../../src/json/index.js";
import type { ModelRequest } from "../../../src/models/model-client.js";
import { openaiResponses } from "../../../src/providers/openai/responses.js";
import type { LoopbackServer } from "../support/harness.js";
import { MODES, mode, signal } from "../support/loopback-test.js";
import { startRawServer } from "../support/raw-server.js";
import type { RawServer } from "../support/raw-server.js";
import { startResponsesServer } from "./responses-harness.js";
import { responseShell, responsesEventStream } from "./responses-harness-reply.js";

const request: ModelRequest = { system: "s", messages: [{ role: "user", content: "Go." }], tools: [] };
const sdk = (url: string) => new OpenAI({ apiKey: "sk-loopback", baseURL: url, maxRetries: 0 });

describe("the loopback Responses API refuses what the real API refuses", () => {
  let server: LoopbackServer;
  before(async () => (server = await startResponsesServer()));
  after(() => server.close());

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ["an unknown top-level field", { temperature_boost: 2 }, /Unknown parameter: 'temperature_boost'/],
    ["an include value it does not know", { include: ["reasoning.summary"] }, /Invalid value: 'reasoning.summary'/],
    ["a tool name with a dot", { tools: [{ type: "function", name: "fs.read", parameters: {} }] }, /tools\[0\]\.name/],
    [
      "an unknown field in a tool",
      { tools: [{ type: "function", name: "read", parameters: {}, invalidJson: true }] },
      /tools\[0\]\.invalidJson/,
    ],
    [
      "a reasoning item it never issued",
      {
        input: [
          { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "made-up" },
          { role: "user", content: "x" },
        ],
      },
      /could not be verified/,
    ],
    [
      "function_call arguments that are not a string",
      {
        input: [
          { type: "function_call", call_id: "c1", name: "read", arguments: { path: "a" } },
          { type: "function_call_output", call_id: "c1", output: "ok" },
        ],
      },
      /input\[0\]\.arguments/,
    ],
  ];
  for (const [what, extra, reason] of refused)
    test(`refuses ${what} with a 400 in OpenAI's error shape`, async () => {
      const body = { model: "gpt-loopback", input: [{ role: "user", content: "Go." }], ...extra };
      await assert.rejects(sdk(server.url).responses.create(body as never), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.match(error.message, reason);
        assert.equal(error.type, "invalid_request_error");
        return true;
      });
      assert.match(server.refusals.at(-1) ?? "", reason);
    });

  test("refuses a reasoning item that is not followed by the item it came with", async () => {
    server.reply({
      type: "answer",
      reasoning: { text: "think", signature: "enc-follow" },
      calls: [{ id: "call_f", tool: "read", arguments: "{}" }],
    });
    const first = await sdk(server.url).responses.create({ model: "gpt-loopback", input: "Go." });
    const [reasoning] = first.output as unknown as Json[];
    const input = [
      { role: "user", content: "Go." },
      reasoning,
      { type: "function_call", call_id: "call_other", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "call_other", output: "ok" },
    ];
    await assert.rejects(
      sdk(server.url).responses.create({ model: "gpt-loopback", input } as never),
      OpenAI.BadRequestError,
    );
    assert.match(server.refusals.at(-1) ?? "", /without its required following item/);
  });

  test("answers a request past the end of its script with a 500 and records it", async () => {
    await assert.rejects(
      sdk(server.url).responses.create({ model: "gpt-loopback", input: "Go." }),
      OpenAI.InternalServerError,
    );
    assert.match(server.refusals.at(-1) ?? "", /past the end of the script/);
  });
});

describe("openaiResponses reads what a script cannot produce", () => {
  let answer: (body: Record<string, unknown>) => string;
  let server: RawServer;
  before(async () => (server = await startRawServer((body) => answer(body))));
  after(() => server.close());
  const model = (stream: boolean) => openaiResponses(sdk(`${server.origin}/v1`), { model: "gpt-loopback", stream });
  const sse = (...events: Record<string, unknown>[]): string => responsesEventStream(events);
  const message = {
    id: "msg_1",
    type: "message",
    status: "incomplete",
    role: "assistant",
    content: [{ type: "output_text", text: "Half", annotations: [] }],
  };

  test("an error event in the middle of a stream rejects with model_failed", async () => {
    answer = () =>
      sse(
        { type: "response.created", response: responseShell("resp_1", {}, "in_progress", [], null) },
        {
          type: "response.output_text.delta",
          item_id: "msg_1",
          output_index: 0,
          content_index: 0,
          delta: "Hal",
          logprobs: [],
        },
        { type: "error", code: "server_error", message: "The model had a problem.", param: null },
      );
    const seen: string[] = [];
    await assert.rejects(
      model(true).generate(request, { signal: signal(), onText: (delta) => seen.push(delta) }),
      (error: unknown) =>
        isLeashError(error, "model_failed") && /The model had a problem/.test((error as Error).message),
    );
    assert.deepEqual(seen, ["Hal"]);
  });

  test("a stream that ends without a final event rejects with model_failed", async () => {
    answer = () => sse({ type: "response.created", response: responseShell("resp_1", {}, "in_progress", [], null) });
    await assert.rejects(model(true).generate(request, { signal: signal() }), (error: unknown) =>
      isLeashError(error, "model_failed"),
    );
  });

  for (const stream of MODES) {
    test(`an incomplete response finishes with length, a failed one with error (${mode(stream)})`, async () => {
      const incomplete = {
        ...responseShell("resp_2", {}, "incomplete", [message], { input_tokens: 5, output_tokens: 7 }),
        incomplete_details: { reason: "max_output_tokens" },
      };
      answer = () => (stream ? sse({ type: "response.incomplete", response: incomplete }) : JSON.stringify(incomplete));
      const cut = await model(stream).generate(request, { signal: signal() });
      assert.deepEqual(cut, { calls: [], text: "Half", usage: { inputTokens: 5, outputTokens: 7 }, finish: "length" });
      const failed = {
        ...responseShell("resp_3", {}, "failed", [], null),
        error: { code: "server_error", message: "no" },
      };
      answer = () => (stream ? sse({ type: "response.failed", response: failed }) : JSON.stringify(failed));
      const broken = await model(stream).generate(request, { signal: signal() });
      assert.equal(broken.finish, "error");
    });
  }
});
