// `leashTool` of `leash/ai-sdk`: an AI SDK tool (made by ai 6's own `tool()`) turned into a leash tool,
// its schema read once, its execute given the session's call id and leash's signal; and what
// `gateTools` and `chargeUsage` hand a session, seen through a session that records each call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { asSchema, jsonSchema, tool as aiTool, zodSchema } from "ai";
import { z } from "zod";
import { isLeashError } from "../../src/index.js";
import type { ToolContext } from "../../src/tools/tool-context.js";
import { chargeUsage, gateEnded, gateTools, leashTool } from "../../src/providers/ai-sdk/index.js";
import type { GateToolsLike } from "../../src/providers/ai-sdk/index.js";

function contextOf(signal = new AbortController().signal): ToolContext {
  return { runId: "run-1", step: 0, principal: undefined, signal, idempotencyKey: "key-of-step-0", fencingToken: 1 };
}

test("a zod 4 input schema becomes the JSON Schema of its input, and execute gets the parsed value", async () => {
  const seen: unknown[] = [];
  const lookup = aiTool({
    description: "Look a topic up.",
    inputSchema: z.object({ topic: z.string(), depth: z.number().int().default(1) }),
    execute: (input) => {
      seen.push(input);
      return `page about ${input.topic}`;
    },
  });
  const converted = leashTool(lookup, { name: "lookup", effect: "read" });
  assert.equal(converted.description, "Look a topic up.");
  assert.deepEqual(
    converted.parameters,
    z.toJSONSchema(z.object({ topic: z.string(), depth: z.number().int().default(1) }), { io: "input" }),
  );
  assert.equal(converted.validator.validate({ depth: 2 }).valid, false, "the topic is required");
  assert.equal(await converted.execute({ topic: "ids" }, contextOf()), "page about ids");
  assert.deepEqual(seen, [{ topic: "ids", depth: 1 }]);
});

test("a jsonSchema() wrapper gives its JSON Schema, and its validate refuses at the typed check", async () => {
  const schema = {
    type: "object",
    properties: { amount: { type: "number" } },
    required: ["amount"],
    additionalProperties: false,
  };
  const pay = aiTool({
    inputSchema: jsonSchema<{ amount: number }>(schema as never, {
      validate: (value) =>
        (value as { amount: number }).amount > 0
          ? { success: true, value: value as { amount: number } }
          : { success: false, error: new Error("amount must be positive") },
    }),
    execute: ({ amount }) => `paid ${amount}`,
  });
  const converted = leashTool(pay, { name: "pay", effect: "external", scopes: ["payments"], cost: 2 });
  assert.deepEqual(converted.parameters, schema);
  assert.deepEqual(
    [converted.effect, converted.scopes, converted.cost, converted.idempotent],
    ["external", ["payments"], 2, false],
  );
  assert.deepEqual(await converted.typedProblems({ amount: -1 }), ["amount must be positive"]);
  assert.deepEqual(await converted.typedProblems({ amount: 5 }), []);
});

test("a zodSchema() wrapper and a lazy schema are read once, when the tool is built", () => {
  let reads = 0;
  const lazy = aiTool({
    inputSchema: () => {
      reads += 1;
      return jsonSchema({ type: "object", properties: { q: { type: "string" } } });
    },
    execute: () => "ok",
  });
  const converted = leashTool(lazy, { name: "search", effect: "read" });
  assert.equal(reads, 1);
  assert.deepEqual(converted.parameters, { type: "object", properties: { q: { type: "string" } } });
  const wrapped = leashTool(aiTool({ inputSchema: zodSchema(z.object({ n: z.number() })), execute: () => 1 }), {
    name: "count",
    effect: "read",
  });
  assert.equal((wrapped.parameters as { type?: unknown }).type, "object");
});

test("execute gets the session's call id as toolCallId, no messages, and leash's signal", async () => {
  const seen: { toolCallId: string; messages: unknown[]; abortSignal: AbortSignal | undefined }[] = [];
  const note = aiTool({
    inputSchema: z.object({ text: z.string() }),
    execute: (_input, options) => {
      seen.push({ toolCallId: options.toolCallId, messages: options.messages, abortSignal: options.abortSignal });
      return "noted";
    },
  });
  const converted = leashTool(note, { name: "note", effect: "write", idempotent: true });
  const signal = new AbortController().signal;
  await converted.execute({ text: "a" }, contextOf(signal));
  await converted.execute({ text: "b" }, { ...contextOf(signal), callId: "call_42" } as ToolContext);
  assert.equal(seen[0]?.toolCallId, "key-of-step-0", "outside a gate call: the call's idempotency key");
  assert.equal(seen[1]?.toolCallId, "call_42");
  assert.deepEqual(seen[0]?.messages, []);
  assert.equal(seen[0]?.abortSignal, signal);
  assert.equal(converted.idempotent, true);
});

test("a streaming tool's result is its last output", async () => {
  const progress = aiTool({
    inputSchema: z.object({}),
    async *execute() {
      yield "started";
      yield "half";
      yield { done: true };
    },
  });
  assert.deepEqual(await leashTool(progress, { name: "progress", effect: "read" }).execute({}, contextOf()), {
    done: true,
  });
});

test("a tool leash cannot build is refused with a code, naming what is wrong", () => {
  const refused = (build: () => unknown, code: string, words: RegExp) =>
    assert.throws(
      build,
      (error: unknown) => isLeashError(error, code as never) && words.test((error as Error).message),
    );
  const clientSide = aiTool({ inputSchema: z.object({}) });
  refused(() => leashTool(clientSide, { name: "ask", effect: "read" }), "invalid_tool", /has no `execute`/);
  const promised = aiTool({ inputSchema: jsonSchema(Promise.resolve({ type: "object" }) as never), execute: () => 1 });
  refused(() => leashTool(promised, { name: "later", effect: "read" }), "invalid_tool", /not a promise/);
  const fine = aiTool({ inputSchema: z.object({}), execute: () => 1 });
  refused(
    () => leashTool(fine, { name: "x", effect: "read", scope: ["a"] } as never),
    "invalid_option",
    /Unknown option `scope`/,
  );
  refused(() => leashTool(fine, { name: "x" } as never), "invalid_option", /expected `effect`/);
  refused(() => leashTool(fine, { name: "has space", effect: "read" }), "invalid_tool", /name/);
  refused(() => leashTool(fine, { name: "x", effect: "delete" as never }), "invalid_tool", /effect/);
  refused(
    () => leashTool({ inputSchema: { type: "object" }, execute: () => 1 }, { name: "raw", effect: "read" }),
    "invalid_tool",
    /jsonSchema\(\)/,
  );
});

/** A session as `gateTools` reads it, recording what reaches it. */
function recordingSession(tools?: GateToolsLike) {
  const seen: string[] = [];
  const session = {
    ...(tools === undefined ? {} : { tools }),
    call: (callId: string, name: string) => {
      seen.push(`call ${callId} ${name}`);
      return Promise.resolve({ status: "executed" as const, result: "ok" });
    },
    needsApproval: (callId: string, name: string) => {
      seen.push(`needsApproval ${callId} ${name}`);
      return Promise.resolve(true);
    },
    charge: (usage: unknown) => {
      seen.push(`charge ${JSON.stringify(usage)}`);
      return Promise.resolve({ status: "charged" });
    },
  };
  return { session, seen };
}

test("gateTools gives each tool its leash JSON Schema, and a second ask after an approving response does not reach leash", async () => {
  const lookup = leashTool(
    aiTool({ description: "Look up.", inputSchema: z.object({ topic: z.string() }), execute: () => 1 }),
    {
      name: "lookup",
      effect: "read",
    },
  );
  const { session, seen } = recordingSession([lookup]);
  const tools = gateTools(session);
  assert.deepEqual(Object.keys(tools), ["lookup"]);
  assert.equal(tools.lookup?.description, "Look up.");
  const schema = await asSchema(tools.lookup.inputSchema as never).jsonSchema;
  assert.deepEqual(
    (schema as { properties?: unknown }).properties,
    (lookup.parameters as { properties?: unknown }).properties,
  );
  const approving = [
    { role: "assistant", content: [{ type: "tool-approval-request", approvalId: "a1", toolCallId: "call_1" }] },
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
  ];
  assert.equal(await tools.lookup.needsApproval({ topic: "x" }, { toolCallId: "call_1", messages: approving }), true);
  assert.equal(await tools.lookup.needsApproval({ topic: "x" }, { toolCallId: "call_2", messages: approving }), true);
  const denying = [
    approving[0],
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: false }] },
  ];
  await tools.lookup.needsApproval({ topic: "x" }, { toolCallId: "call_1", messages: denying });
  assert.deepEqual(seen, ["needsApproval call_2 lookup", "needsApproval call_1 lookup"]);
  assert.equal(await tools.lookup.execute({ topic: "x" }, { toolCallId: "call_1" }), "ok");
  assert.deepEqual(seen.at(-1), "call call_1 lookup");
});

test("gateTools and chargeUsage refuse what is not a session, or options they do not know", () => {
  const refused = (build: () => unknown, words: RegExp) =>
    assert.throws(
      build,
      (error: unknown) => isLeashError(error, "invalid_option") && words.test((error as Error).message),
    );
  refused(() => gateTools(null as never), /gate's session/);
  refused(() => gateTools(recordingSession().session), /does not list its gate's tools/);
  refused(() => gateTools(recordingSession([]).session, { tool: [] } as never), /Unknown option `tool`/);
  refused(() => chargeUsage({} as never), /has `charge`/);
  refused(() => chargeUsage(recordingSession([]).session, { price: { input: -1, output: 1 } }), /price/);
  refused(() => gateEnded({} as never), /has `state`/);
});

test("chargeUsage charges a step's tokens and its cost at the price, naming the model", async () => {
  const { session, seen } = recordingSession([]);
  await chargeUsage(session, { price: { input: 2, output: 10, cacheRead: 1 } })({
    usage: {
      inputTokens: 1000,
      inputTokenDetails: { noCacheTokens: 400, cacheReadTokens: 600, cacheWriteTokens: undefined },
      outputTokens: 100,
      outputTokenDetails: { textTokens: 100, reasoningTokens: undefined },
      totalTokens: 1100,
    },
    model: { modelId: "gpt-5-mini" },
  });
  // 400 * 2 + 600 * 1 + 100 * 10 = 2400 per million.
  assert.deepEqual(seen, [`charge ${JSON.stringify({ tokens: 1100, cost: 0.0024, model: "gpt-5-mini" })}`]);
});
