// A run that switches providers hands one adapter's opaque state to another: each adapter sends back
// only state of its own shape (Anthropic thinking blocks, Responses reasoning items, AI SDK parts) and
// drops the rest, so the provider takes the request. The states come from the real adapters.
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { MockLanguageModelV3 } from "ai/test";
import type { Json } from "../../src/json/index.js";
import type { ModelClient, ModelRequest, ToolDescription } from "../../src/index.js";
import { aiSdkModel } from "../../src/providers/ai-sdk/index.js";
import { generated, plain } from "./ai-sdk/mock.js";
import { loadHarness } from "./support/harnesses.js";

const look: ToolDescription = {
  name: "look",
  description: "Looks at a page.",
  parameters: { type: "object", properties: {} },
  effect: "read",
  scopes: [],
  cost: 0,
  idempotent: true,
};

const quiet = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });
const task = { role: "user", content: "Look." } as const;
const request = (providerState?: Json): ModelRequest => ({
  system: "You look.",
  tools: [look],
  messages: [
    task,
    {
      role: "assistant",
      calls: [{ id: "call_1", tool: "look", args: {} }],
      ...(providerState === undefined ? {} : { providerState }),
    },
    { role: "tool", callId: "call_1", tool: "look", outcome: "executed", content: "page" },
  ],
});

/** The state one adapter gives for an answer with reasoning, from its loopback server. */
async function stateFrom(name: string, signature: string): Promise<Json> {
  const harness = await loadHarness(name);
  const server = await harness.start();
  try {
    server.reply({
      type: "answer",
      reasoning: { text: "Look first.", signature },
      calls: [{ id: "call_1", tool: "look", arguments: "{}" }],
    });
    const answer = await harness
      .client(server.url, { stream: false })
      .generate({ ...request(), messages: [task] }, quiet());
    assert.ok(answer.providerState !== undefined);
    return answer.providerState;
  } finally {
    await server.close();
  }
}

/** The state aiSdkModel gives for an answer with a signed reasoning part and a signed call. */
async function aiSdkState(): Promise<Json> {
  const model = new MockLanguageModelV3({
    doGenerate: generated(
      [
        { type: "reasoning", text: "Look first.", providerMetadata: { anthropic: { signature: "SDK-SIG" } } },
        { type: "text", text: "Looking.", providerMetadata: { google: { thoughtSignature: "SDK-TEXT-SIG" } } },
        {
          type: "tool-call",
          toolCallId: "call_1",
          toolName: "look",
          input: "{}",
          providerMetadata: { google: { thoughtSignature: "SDK-CALL-SIG" } },
        },
      ],
      "tool-calls",
    ),
  });
  const answer = await aiSdkModel(model).generate({ ...request(), messages: [task] }, quiet());
  assert.ok(answer.providerState !== undefined);
  return answer.providerState;
}

const states: Record<string, () => Promise<Json>> = {
  anthropicMessages: () => stateFrom("anthropicMessages", "ANTHROPIC-SIG"),
  openaiResponses: () => stateFrom("openaiResponses", "RESPONSES-SIG"),
  aiSdkModel: aiSdkState,
};
const SIGNATURES = /ANTHROPIC-SIG|RESPONSES-SIG|SDK-SIG|SDK-TEXT-SIG|SDK-CALL-SIG|Look first/;

for (const target of ["anthropicMessages", "openaiResponses", "openaiChat"]) {
  for (const source of Object.keys(states).filter((name) => name !== target)) {
    test(`${target} sends an answer whose providerState came from ${source} without it, and the server takes it`, async (t) => {
      const foreign = await states[source]!();
      const harness = await loadHarness(target);
      const server = await harness.start();
      t.after(() => server.close());
      server.reply({ type: "answer", text: "done" });
      const client: ModelClient = harness.client(server.url, { stream: false });
      const answer = await client.generate(request(foreign), quiet());
      assert.deepEqual(server.refusals, []);
      assert.equal(answer.text, "done");
      assert.doesNotMatch(JSON.stringify(server.requests[0]), SIGNATURES);
      assert.deepEqual(harness.read(server.requests[0]!).providerState, []);
    });
  }
}

for (const source of ["anthropicMessages", "openaiResponses"]) {
  test(`aiSdkModel sends an answer whose providerState came from ${source} without it`, async () => {
    const foreign = await states[source]!();
    const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "done" }]) });
    await aiSdkModel(model).generate(request(foreign), quiet());
    const assistant = model.doGenerateCalls[0]?.prompt.find((message) => message.role === "assistant");
    assert.deepEqual(plain(assistant?.content), [
      { type: "tool-call", toolCallId: "call_1", toolName: "look", input: {} },
    ]);
  });
}

test("the loopback Anthropic server refuses a content block type the Messages API does not know", async (t) => {
  const harness = await loadHarness("anthropicMessages");
  const server = await harness.start();
  t.after(() => server.close());
  const client = new Anthropic({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 });
  const messages = [
    { role: "user", content: "Look." },
    { role: "assistant", content: [{ type: "reasoning", id: "rs_1", summary: [] }] },
    { role: "user", content: "Go on." },
  ] as unknown as Anthropic.MessageParam[];
  await assert.rejects(
    client.messages.create({ model: "claude-loopback-1", max_tokens: 64, messages }),
    Anthropic.BadRequestError,
  );
  assert.match(server.refusals.at(-1) ?? "", /Input tag 'reasoning' found using 'type' does not match/);
});
