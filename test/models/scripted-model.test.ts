import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError } from "../../src/index.js";
import type { ModelRequest } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";

const signal = new AbortController().signal;
const request = (content: string): ModelRequest => ({
  system: "test",
  messages: [{ role: "user", content }],
  tools: [],
});

test("answers each call with the next step, numbering call ids across the script, with zero usage unless the step gives it", async () => {
  const model = scriptedModel(
    says.tool("lookup", { topic: "spans" }),
    says.calls([
      { tool: "a", args: {} },
      { tool: "b", args: { n: 1 } },
    ]),
    says.handBack({ hours: 1 }, { usage: { inputTokens: 12, outputTokens: 3 } }),
    says.text("hello"),
  );
  assert.equal(model.name, "scripted");
  assert.equal(model.price, undefined);
  assert.deepEqual(await model.generate(request("1"), { signal }), {
    calls: [{ id: "call_1", tool: "lookup", args: { topic: "spans" } }],
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  assert.deepEqual((await model.generate(request("2"), { signal })).calls, [
    { id: "call_2", tool: "a", args: {} },
    { id: "call_3", tool: "b", args: { n: 1 } },
  ]);
  assert.deepEqual(await model.generate(request("3"), { signal }), {
    calls: [],
    handBack: { hours: 1 },
    handBackId: "call_4",
    usage: { inputTokens: 12, outputTokens: 3 },
  });
  assert.deepEqual(await model.generate(request("4"), { signal }), {
    calls: [],
    text: "hello",
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  assert.equal(model.remaining, 0);
});

test("a step may give its call's id, and its usage with cache and reasoning tokens", async () => {
  const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 10, reasoningTokens: 5 };
  const model = scriptedModel(says.tool("a", {}, { id: "toolu_1", usage }), says.tool("b"));
  assert.deepEqual(await model.generate(request("1"), { signal }), {
    calls: [{ id: "toolu_1", tool: "a", args: {} }],
    usage,
  });
  assert.deepEqual((await model.generate(request("2"), { signal })).calls, [{ id: "call_2", tool: "b", args: {} }]);
  model.assertDone();
});

test("records a deep copy of every request, in order", async () => {
  const model = scriptedModel(says.text("one"), says.text("two"));
  const first = request("first");
  await model.generate(first, { signal });
  (first.messages[0] as { content: string }).content = "changed after the call";
  await model.generate(request("second"), { signal });
  assert.deepEqual(
    model.requests.map((item) => (item.messages[0] as { content: string }).content),
    ["first", "second"],
  );
});

test("asked past the end of its script it throws script_exhausted, naming how many steps it had", async () => {
  const model = scriptedModel({ name: "Everyday" }, says.text("only"));
  await model.generate(request("1"), { signal });
  await assert.rejects(model.generate(request("2"), { signal }), (error) => {
    assert.ok(isLeashError(error, "script_exhausted"));
    assert.match(error.message, /Everyday/);
    assert.match(error.message, /has 1 step\b/);
    return true;
  });
  // The request that found the end is recorded too: it is what the test must look at.
  assert.equal(model.requests.length, 2);
});

test("assertDone throws script_unfinished, listing the steps left", async () => {
  const model = scriptedModel(says.tool("lookup", { topic: "ids" }), says.handBack("done"), () => ({
    calls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
  }));
  await model.generate(request("1"), { signal });
  assert.throws(
    () => model.assertDone(),
    (error) => {
      assert.ok(isLeashError(error, "script_unfinished"));
      assert.match(error.message, /2 steps left/);
      assert.match(error.message, /2\. says\.handBack\("done"\)/);
      assert.match(error.message, /3\. a function/);
      return true;
    },
  );
});

test("a function step answers from the request and the number of the call", async () => {
  const model = scriptedModel(says.text("first"), (asked, call) => ({
    calls: [],
    text: `${(asked.messages[0] as { content: string }).content} at ${call}`,
    usage: { inputTokens: 1, outputTokens: 1 },
  }));
  await model.generate(request("a"), { signal });
  assert.equal((await model.generate(request("b"), { signal })).text, "b at 1");
});

test("takes a name and a price as an optional first argument", () => {
  const model = scriptedModel({ name: "Everyday", price: { input: 1, output: 5 } }, says.text("hi"));
  assert.equal(model.name, "Everyday");
  assert.deepEqual(model.price, { input: 1, output: 5 });
  assert.equal(model.remaining, 1);
  assert.equal(scriptedModel().remaining, 0);
});

test("refuses a step that is neither made by says nor a function, and a bad price", () => {
  assert.throws(
    () => scriptedModel(says.text("ok"), { calls: [] } as never),
    (error) => isLeashError(error, "invalid_option") && /step 2/.test(error.message),
  );
  assert.throws(
    () => scriptedModel({ price: { input: -1, output: 0 } }),
    (error) => isLeashError(error, "invalid_option"),
  );
  assert.throws(
    () => scriptedModel({ name: "" }),
    (error) => isLeashError(error, "invalid_option"),
  );
});

test("what it answers is a copy: changing an answer does not change the script", async () => {
  const step = says.handBack({ hours: 1 });
  const model = scriptedModel(step, step);
  const first = await model.generate(request("1"), { signal });
  (first.handBack as { hours: number }).hours = 99;
  assert.deepEqual((await model.generate(request("2"), { signal })).handBack, { hours: 1 });
});

test("does not answer once the signal is aborted", async () => {
  const controller = new AbortController();
  controller.abort(new Error("cancelled"));
  const model = scriptedModel(says.text("never"));
  await assert.rejects(model.generate(request("1"), { signal: controller.signal }), /cancelled/);
  assert.equal(model.remaining, 1);
});
