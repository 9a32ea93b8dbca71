// A standing grant's `args` schema is matched inside every agent that asks for approval, against
// arguments a model wrote: its patterns are matched in linear time (RE2), a pattern RE2 cannot match
// is refused when the grant is given, and so is a schema too long to be a bound anyone reviewed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, MemoryStore, Policy, isLeashError, tool } from "../../src/index.js";
import type { JsonSchema } from "../../src/index.js";

function noteAgent(store: MemoryStore, text: string, written: string[]): Agent {
  const note = tool<{ text: string }>({
    name: "note",
    effect: "write",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text: given }) => {
      written.push(given);
      return "noted";
    },
  });
  return new Agent({
    tools: [note],
    store,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("note", { text }) : Decision.finish("done")),
  });
}

test("a grant's pattern that backtracks exponentially in JavaScript is matched in linear time against a model's text", async () => {
  const store = new MemoryStore();
  await store.grant({
    tool: "note",
    args: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
    maxUses: 2,
    by: "noor",
  });
  const written: string[] = [];
  // 40 a's and a b: JavaScript's engine would take on the order of 2^40 steps to refuse it.
  const hostile = `${"a".repeat(40)}b`;
  const paused = await noteAgent(store, hostile, written).run("note a hostile text");
  assert.equal(paused.status, "awaiting_approval", "the text does not fit the pattern: no grant approves it");
  const fits = await noteAgent(store, "a".repeat(40), written).run("note a fitting text");
  assert.equal(fits.status, "completed");
  assert.deepEqual(written, ["a".repeat(40)]);
});

test("a grant whose pattern RE2 cannot match, or whose schema is too long, is refused with invalid_option and nothing is stored", async () => {
  const store = new MemoryStore();
  await assert.rejects(
    store.grant({
      tool: "note",
      args: { type: "object", properties: { text: { type: "string", pattern: "^(a)\\1$" } } },
      maxUses: 1,
      by: "noor",
    }),
    (error) => isLeashError(error, "invalid_option"),
  );
  const branches = Array.from({ length: 5_000 }, (_, index) => ({ const: `value-${index}` }));
  await assert.rejects(
    store.grant({ tool: "note", args: { anyOf: branches }, maxUses: 1, by: "noor" }),
    (error) => isLeashError(error, "invalid_option") && /at most 65536 characters/.test(error.message),
  );
  assert.deepEqual(await store.grants(), []);
});

test("a grant's schema with a keyword or format the dialect does not know is refused with invalid_option naming it, and nothing is stored", async () => {
  const store = new MemoryStore();
  const misspelt: { schema: JsonSchema; names: RegExp }[] = [
    { schema: { type: "object", properties: { amount: { type: "number", maximun: 50 } } }, names: /maximun/ },
    { schema: { type: "object", properties: { to: { type: "string", format: "emial" } } }, names: /emial/ },
    { schema: { type: "object", propertys: { amount: { maximum: 50 } } }, names: /propertys/ },
  ];
  for (const { schema, names } of misspelt) {
    await assert.rejects(
      store.grant({ tool: "pay", args: schema, maxUses: 3, by: "noor" }),
      (error) => isLeashError(error, "invalid_option") && names.test((error as Error).message),
    );
  }
  assert.deepEqual(await store.grants(), []);
  assert.deepEqual(store.records, []);
  // Keywords that annotate (title, description, examples, default) are known, and allowed.
  const annotated = await store.grant({
    tool: "pay",
    args: {
      type: "object",
      title: "small payments",
      properties: { amount: { type: "number", maximum: 50, description: "euros", examples: [10], default: 1 } },
    },
    maxUses: 3,
    by: "noor",
  });
  assert.equal((await store.grants()).length, 1);
  assert.equal(annotated.tool, "pay");
});
