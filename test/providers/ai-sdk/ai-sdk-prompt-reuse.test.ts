// The adapter keeps the prompt of the last request that began with the same frozen task message and
// makes only what a new request adds; whatever the requests share or not, each prompt must be the one
// a conversion from scratch gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MockLanguageModelV3 } from "ai/test";
import type { ModelMessage } from "../../../src/models/model-client.js";
import { aiSdkModel } from "../../../src/providers/ai-sdk/index.js";
import { generated, plain, quiet, requestOf } from "./mock.js";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

const task = deepFreeze<ModelMessage>({ role: "user", content: "Label the shelf." });
const ask = (id: string, ...more: string[]): ModelMessage =>
  deepFreeze({ role: "assistant", calls: [id, ...more].map((call) => ({ id: call, tool: "read", args: { text: call } })) });
const answer = (id: string): ModelMessage =>
  deepFreeze({ role: "tool", callId: id, tool: "read", outcome: "executed", content: `read ${id}` });
const handBack = deepFreeze<ModelMessage>({ role: "assistant", calls: [], handBack: { id: "h1", output: { n: 1 } } });
const refused = deepFreeze<ModelMessage>({
  role: "tool",
  callId: "h1",
  tool: "hand_back",
  outcome: "answer_rejected",
  content: "Not yet.",
});
const output = { type: "object", properties: { n: { type: "integer" } } } as const;

test("each request's prompt equals a conversion from scratch, whether it extends, repeats or parts from the last", async () => {
  const reused = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const fresh = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const [a, c, d] = [ask("a", "b"), ask("c"), ask("d")];
  const conversations: ModelMessage[][] = [
    [task],
    [task, a, answer("a")],
    [task, a, answer("a"), answer("b")],
    [task, a, answer("a"), answer("b"), c, answer("c")],
    [task, a, answer("a"), answer("b"), c, answer("c")],
    // Parts in the middle of an answer's results, then in the middle of the conversation.
    [task, a, answer("a"), { role: "user", content: "Stop." }],
    [task, c, answer("c"), d, answer("d")],
    // A user message that is not frozen, changed between two requests.
    [task, a, answer("a"), answer("b"), c],
    // A replayed hand-back, then the conversation without it again.
    [task, a, answer("a"), answer("b"), handBack, refused],
    [task, a, answer("a"), answer("b"), c, answer("c")],
  ];
  const mutable: ModelMessage = { role: "user", content: "First." };
  conversations.push([task, a, mutable], [task, a, mutable]);
  const reusing = aiSdkModel(reused, { handBackTool: "answer" });
  const fromScratch = aiSdkModel(fresh, { handBackTool: "answer" });
  for (const [index, messages] of conversations.entries()) {
    if (index === conversations.length - 1) mutable.content = "Changed since.";
    await reusing.generate(requestOf([], { messages, output }), quiet());
    await fromScratch.generate(requestOf([], { messages: structuredClone(messages), output }), quiet());
  }
  const prompts = reused.doGenerateCalls.map((call) => plain(call.prompt));
  const expected = fresh.doGenerateCalls.map((call) => plain(call.prompt));
  assert.equal(prompts.length, conversations.length);
  for (const [index, prompt] of prompts.entries()) assert.deepEqual(prompt, expected[index], `request ${index}`);
  assert.deepEqual(prompts.at(-1)?.at(-1), { role: "user", content: [{ type: "text", text: "Changed since." }] });
});

test("a prompt handed to the model can be changed without changing the next request's", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const client = aiSdkModel(model);
  const a = ask("a");
  await client.generate(requestOf([], { messages: [task, a, answer("a")] }), quiet());
  const first = model.doGenerateCalls[0]?.prompt;
  assert.ok(first);
  first.splice(1, first.length - 1);
  await client.generate(requestOf([], { messages: [task, a, answer("a")] }), quiet());
  assert.equal(model.doGenerateCalls[1]?.prompt.length, 4);
});
