// A model object shaped as @ai-sdk/provider 4's LanguageModelV4 (ai 7, which needs Node 22, so it is
// written out here from that package's types rather than installed).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AiSdkCallOptions, AiSdkLanguageModel } from "../../../src/providers/ai-sdk/index.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import { plain, quiet, requestOf } from "./mock.js";

const usage = {
  inputTokens: { total: 40, noCache: 10, cacheRead: 30, cacheWrite: undefined },
  outputTokens: { total: 12, text: 4, reasoning: 8 },
};

function v4Model(results: object[], streams: object[][] = []) {
  const calls: AiSdkCallOptions[] = [];
  const model = {
    specificationVersion: "v4" as const,
    provider: "acme.responses",
    modelId: "acme-1",
    supportedUrls: {},
    doGenerate(options: AiSdkCallOptions) {
      calls.push(options);
      return Promise.resolve(results.shift());
    },
    doStream(options: AiSdkCallOptions) {
      calls.push(options);
      const parts = streams.shift() ?? [];
      return Promise.resolve({
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      });
    },
  };
  return { model: model as unknown as AiSdkLanguageModel, calls };
}

test("a V4 model works: reasoning, reasoning files and custom parts go back verbatim, interrupted is other", async () => {
  const bytes = new TextEncoder().encode("encrypted reasoning");
  const { model, calls } = v4Model([
    {
      content: [
        { type: "reasoning", text: "Plan.", providerMetadata: { acme: { itemId: "rs_1" } } },
        { type: "reasoning-file", mediaType: "application/octet-stream", data: { type: "data", data: bytes } },
        { type: "custom", kind: "acme.compaction", providerMetadata: { acme: { blob: "zz" } } },
        { type: "text", text: "Reading.", citations: [] },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"text":"top"}' },
      ],
      finishReason: { unified: "interrupted", raw: undefined },
      usage,
      warnings: [],
    },
    { content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
  ]);
  const client = aiSdkModel(model);
  assert.equal(client.name, "acme.responses:acme-1");
  const first = await client.generate(requestOf(), quiet());
  assert.equal(first.finish, "other");
  assert.deepEqual(first.usage, { inputTokens: 40, outputTokens: 12, cacheReadTokens: 30, reasoningTokens: 8 });
  assert.deepEqual(first.calls, [{ id: "c1", tool: "read", args: { text: "top" } }]);
  const base64 = Buffer.from(bytes).toString("base64");
  assert.deepEqual(first.providerState, [
    { type: "reasoning", text: "Plan.", providerOptions: { acme: { itemId: "rs_1" } } },
    { type: "reasoning-file", mediaType: "application/octet-stream", data: { type: "data", data: base64 } },
    { type: "custom", kind: "acme.compaction", providerOptions: { acme: { blob: "zz" } } },
  ]);
  // What is kept is JSON: it survives the saved state of a run.
  const state = JSON.parse(JSON.stringify(first.providerState));
  await client.generate(
    requestOf([
      { role: "assistant", text: first.text!, calls: first.calls, providerState: state },
      { role: "tool", callId: "c1", tool: "read", outcome: "executed", content: "three books" },
    ]),
    quiet(),
  );
  assert.deepEqual(plain(calls[1]?.prompt[2]), {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Plan.", providerOptions: { acme: { itemId: "rs_1" } } },
      { type: "reasoning-file", mediaType: "application/octet-stream", data: { type: "data", data: base64 } },
      { type: "custom", kind: "acme.compaction", providerOptions: { acme: { blob: "zz" } } },
      { type: "text", text: "Reading." },
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: { text: "top" } },
    ],
  });
});

test("a V4 stream with pings, a reasoning file by URL and a custom part is read to its finish", async () => {
  const { model, calls } = v4Model(
    [{ content: [], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }],
    [
      [
        { type: "stream-start", warnings: [] },
        { type: "ping" },
        {
          type: "reasoning-file",
          mediaType: "image/png",
          data: { type: "url", url: new URL("https://files.example/r.png") },
        },
        { type: "custom", kind: "acme.marker", providerMetadata: { acme: { n: 1 } } },
        { type: "text-delta", id: "t", delta: "Hello" },
        { type: "ping" },
        { type: "text-delta", id: "t", delta: "." },
        { type: "text-end", id: "t", citations: [] },
        { type: "finish", finishReason: { unified: "stop", raw: "completed" }, usage },
      ],
    ],
  );
  const deltas: string[] = [];
  const response = await aiSdkModel(model, { stream: true }).generate(
    requestOf(),
    quiet((delta) => deltas.push(delta)),
  );
  assert.deepEqual(deltas, ["Hello", "."]);
  assert.equal(response.text, "Hello.");
  assert.equal(response.finish, "stop");
  assert.deepEqual(response.providerState, [
    { type: "reasoning-file", mediaType: "image/png", data: { type: "url", url: "https://files.example/r.png" } },
    { type: "custom", kind: "acme.marker", providerOptions: { acme: { n: 1 } } },
  ]);
  await aiSdkModel(model).generate(
    requestOf([{ role: "assistant", text: "Hello.", calls: [], providerState: response.providerState }]),
    quiet(),
  );
  const sentBack = calls[1]?.prompt[2];
  assert.ok(sentBack?.role === "assistant");
  const file = sentBack.content[0] as unknown as { data: { url: unknown } };
  assert.ok(file.data.url instanceof URL, "a reasoning file by URL goes back with a URL object, as V4 types it");
  assert.equal(file.data.url.href, "https://files.example/r.png");
});
