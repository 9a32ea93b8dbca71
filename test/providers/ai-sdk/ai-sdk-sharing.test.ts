// The conversation leash builds from a run's state is deeply frozen and shared between requests; the
// adapter converts each such message once and shares its AI SDK form too.
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

const answer = (): ModelMessage =>
  deepFreeze({
    role: "assistant",
    text: "Both.",
    calls: [
      { id: "c1", tool: "read", args: { text: "a" } },
      { id: "c2", tool: "read", args: { text: "b" } },
    ],
  });
const result = (id: string): ModelMessage =>
  deepFreeze({ role: "tool", callId: id, tool: "read", outcome: "executed", content: `read ${id}` });

test("frozen messages are converted once and their frozen AI SDK form is shared between requests", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const client = aiSdkModel(model);
  const task = deepFreeze<ModelMessage>({ role: "user", content: "Read both." });
  const assistant = answer();
  const [one, two] = [result("c1"), result("c2")];
  const ask = (messages: ModelMessage[]) => client.generate({ ...requestOf(), messages: [task, ...messages] }, quiet());
  await ask([assistant, one]);
  await ask([assistant, one, two]);
  await ask([assistant, one, two]);
  const [first, second, third] = model.doGenerateCalls.map((call) => call.prompt);
  assert.ok(first && second && third);
  assert.equal(second[1], first[1], "the task's form is shared");
  assert.equal(second[2], first[2], "the answer's form is shared");
  assert.ok(Object.isFrozen(first[2]) && Object.isFrozen(first[2]?.content));
  assert.notEqual(second[3], first[3], "the results of an answer still being taken grow");
  assert.equal(third[3], second[3], "and are shared once they stand still");
  assert.equal(
    (second[3]?.content as unknown[])[0],
    (first[3]?.content as unknown[])[0],
    "each result's form is shared",
  );
  assert.deepEqual(plain(third[3]), {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "read c1" } },
      { type: "tool-result", toolCallId: "c2", toolName: "read", output: { type: "text", value: "read c2" } },
    ],
  });
  assert.notEqual(second, first, "each request gets its own prompt array");
});

test("messages that are not frozen are converted afresh for every request", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const client = aiSdkModel(model);
  const assistant: ModelMessage = { role: "assistant", calls: [{ id: "c1", tool: "read", args: { text: "a" } }] };
  const request = requestOf([
    assistant,
    { role: "tool", callId: "c1", tool: "read", outcome: "executed", content: "a" },
  ]);
  await client.generate(request, quiet());
  assistant.text = "Changed since.";
  await client.generate(request, quiet());
  const [first, second] = model.doGenerateCalls.map((call) => call.prompt);
  assert.notEqual(second?.[2], first?.[2]);
  assert.deepEqual(plain(second?.[2]?.content[0]), { type: "text", text: "Changed since." });
  assert.ok(!Object.isFrozen(first?.[2]));
});

test("a frozen hand-back is replayed under the hand-back tool's name of each request", async () => {
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "ok" }]) });
  const client = aiSdkModel(model, { handBackTool: "answer" });
  const handBack = deepFreeze<ModelMessage>({ role: "assistant", calls: [], handBack: { id: "h1", output: { n: 1 } } });
  const refused = deepFreeze<ModelMessage>({
    role: "tool",
    callId: "h1",
    tool: "hand_back",
    outcome: "answer_rejected",
    content: "Not yet.",
  });
  const output = { type: "object", properties: { n: { type: "integer" } } } as const;
  await client.generate(requestOf([handBack, refused], { output }), quiet());
  await client.generate(
    requestOf([handBack, refused], { output, tools: [{ ...requestOf().tools[0]!, name: "answer" }] }),
    quiet(),
  );
  const names = model.doGenerateCalls.map((call) => {
    const assistantPart = call.prompt[2]?.content[0] as { toolName: string };
    const resultPart = call.prompt[3]?.content[0] as { toolName: string };
    return [assistantPart.toolName, resultPart.toolName];
  });
  assert.deepEqual(names, [
    ["answer", "answer"],
    ["answer_2", "answer_2"],
  ]);
});
