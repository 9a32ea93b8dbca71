import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  LeashError,
  MemoryStore,
  Policy,
  StateError,
  Toolset,
  isLeashError,
  tool,
  toJson,
  verifyAudit,
} from "../../src/index.js";

const code = (expected: string) => (error: unknown) => isLeashError(error, expected as never);

test("a tool name with spaces is refused at construction (invalid_tool)", () => {
  assert.throws(() => tool({ name: "look up", execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "", execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "x".repeat(65), execute: () => 1 }), code("invalid_tool"));
});

test("a schema that does not compile, a negative cost or a bad effect is refused (invalid_tool)", () => {
  assert.throws(() => tool({ name: "a", parameters: { type: "nothing" }, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", parameters: { $ref: "#/nowhere" }, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", cost: -1, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", effect: "delete" as never, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", timeoutMs: 0, execute: () => 1 }), code("invalid_tool"));
  assert.throws(
    () => new Toolset([tool({ name: "a", execute: () => 1 }), tool({ name: "a", execute: () => 2 })]),
    code("invalid_tool"),
  );
});

test("a tool cost that is not finite or is over Number.MAX_SAFE_INTEGER is refused (invalid_tool)", () => {
  assert.throws(() => tool({ name: "a", cost: 1.7e308, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", cost: Number.MAX_SAFE_INTEGER + 2, execute: () => 1 }), code("invalid_tool"));
  assert.throws(() => tool({ name: "a", cost: Infinity, execute: () => 1 }), code("invalid_tool"));
  assert.equal(tool({ name: "a", cost: Number.MAX_SAFE_INTEGER, execute: () => 1 }).cost, Number.MAX_SAFE_INTEGER);
});

test("draft-07 and 2020-12 schemas are both accepted, chosen by $schema", () => {
  const draft7 = tool({
    name: "d7",
    parameters: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "integer" } },
    },
    execute: () => 1,
  });
  assert.equal(draft7.validator.draft, "draft-07");
  const modern = tool({
    name: "d2020",
    parameters: { type: "object", properties: { list: { type: "array", prefixItems: [{ type: "string" }] } } },
    execute: () => 1,
  });
  assert.equal(modern.validator.draft, "2020-12");
});

test("a tool result that is not JSON is a tool_error that records nothing of it; the run goes on", async () => {
  const odd = tool({ name: "odd", execute: () => ({ when: new Map() }) });
  const agent = new Agent({
    tools: [odd],
    planner: (state) => (state.steps.length === 0 ? Decision.act("odd", {}) : Decision.finish("after")),
  });
  const state = await agent.run("x");
  assert.equal(state.steps[0]?.outcome, "tool_error");
  assert.equal(state.steps[0]?.error?.code, "not_json");
  assert.equal(state.steps[0]?.result, null);
  assert.equal(state.status, "completed");
  assert.deepEqual(verifyAudit(agent.audit.records), []);
});

test("an answer that is not JSON fails the run with invalid_decision, and nothing of it is recorded", async () => {
  const agent = new Agent({ tools: [], planner: () => Decision.finish(BigInt(1)) });
  const state = await agent.run("x");
  assert.equal(state.failure?.code, "invalid_decision");
  assert.equal(state.answer, undefined);
});

test("an oversized argument is invalid_arguments and the tool never runs", async () => {
  let ran = 0;
  const echo = tool({
    name: "echo",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    execute: () => ++ran,
  });
  const agent = new Agent({
    tools: [echo],
    maxArgumentsSize: 1000,
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("echo", { text: "x".repeat(5000) }) : Decision.finish(null),
  });
  const state = await agent.run("x");
  assert.equal(state.steps[0]?.outcome, "invalid_arguments");
  assert.match(state.steps[0]?.error?.message ?? "", /more than the 1000 allowed/);
  assert.equal(ran, 0);
});

test("arguments that do not match the schema are invalid_arguments, with the reason", async () => {
  const lookup = tool({
    name: "lookup",
    parameters: {
      type: "object",
      properties: { topic: { type: "string", enum: ["ids", "spans"] } },
      required: ["topic"],
      additionalProperties: false,
    },
    execute: () => "page",
  });
  const agent = new Agent({
    tools: [lookup],
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("lookup", { topic: "colours" }) : Decision.finish(null),
  });
  const state = await agent.run("x");
  assert.equal(state.steps[0]?.outcome, "invalid_arguments");
  assert.match(state.steps[0]?.error?.message ?? "", /topic/);
});

test("values that are not JSON are refused with not_json, never coerced", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const value of [
    Number.NaN,
    Infinity,
    BigInt(2),
    [undefined],
    // eslint-disable-next-line no-sparse-arrays -- a sparse array is one of the values refused
    [1, , 3],
    () => 1,
    Symbol("s"),
    new Map(),
    new Date(),
    cyclic,
    "\ud800",
    2 ** 53 + 2,
  ]) {
    assert.throws(() => toJson(value), code("not_json"), String(typeof value));
  }
  assert.equal(toJson(undefined), null);
  assert.deepEqual(toJson({ a: undefined, b: 1 }), { b: 1 });
  assert.equal(toJson(1e30), 1e30);
});

test("bad options are refused with invalid_option, naming the option, before anything runs", () => {
  assert.throws(() => new Agent({ tools: [], planner: "no" as never }), code("invalid_option"));
  assert.throws(
    () => new Agent({ tools: [], planner: () => Decision.finish(), limits: { maxSteps: -1 } }),
    /`maxSteps`/,
  );
  assert.throws(
    () => new Agent({ tools: [], planner: () => Decision.finish(), limits: { maxStep: 3 } as never }),
    /Unknown limit `maxStep`/,
  );
  assert.throws(() => new Policy({ allowEffects: ["delete" as never] }), code("invalid_option"));
  assert.throws(() => new Approval("abc", { granted: true, approver: "allen" }), code("invalid_option"));
  assert.throws(() => Approval.grant("a".repeat(64), " "), code("invalid_option"));
});

test("a bad run option or a bad run id changes nothing", async () => {
  const store = new MemoryStore();
  const agent = new Agent({ tools: [], store, planner: () => Decision.finish(1) });
  await assert.rejects(agent.run("x", { runId: "has space" }), code("invalid_option"));
  await assert.rejects(agent.run("x", { limits: { maxCost: Number.NaN } }), code("invalid_option"));
  await assert.rejects(agent.run(42 as never), code("invalid_option"));
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(store.records, []);
});

test("LeashError and StateError carry a code, a name and a JSON form; isLeashError works across copies", () => {
  const error = new StateError("stale_state", "moved");
  assert.ok(error instanceof LeashError);
  assert.equal(error.name, "StateError");
  assert.deepEqual(error.toJSON(), { name: "StateError", code: "stale_state", message: "moved" });
  assert.equal(isLeashError(error, "stale_state"), true);
  assert.equal(isLeashError(error, "run_ended"), false);
  const fromAnotherCopy = Object.assign(new Error("x"), { code: "run_ended", [Symbol.for("leash.error")]: true });
  assert.equal(isLeashError(fromAnotherCopy, "run_ended"), true);
  assert.equal(isLeashError(new Error("plain")), false);
  assert.equal(isLeashError(null), false);
});

test("a goal over 1,000,000 characters is invalid_option; an answer over maxResultSize and a reason over 10,000 characters are invalid_decision; a note over 10,000 is not_json", async () => {
  const echo = tool({ name: "echo", parameters: { type: "object" }, execute: () => 1 });
  await assert.rejects(
    new Agent({ tools: [echo], planner: () => Decision.finish("x") }).run("g".repeat(1_000_001)),
    code("invalid_option"),
  );
  assert.equal(
    (await new Agent({ tools: [echo], planner: () => Decision.finish("x") }).run("g".repeat(1_000_000))).status,
    "completed",
  );
  const answer = await new Agent({
    tools: [echo],
    maxResultSize: 100,
    planner: () => Decision.finish("a".repeat(200)),
  }).run("g");
  assert.equal(answer.failure?.code, "invalid_decision");
  const fine = await new Agent({
    tools: [echo],
    maxResultSize: 100,
    planner: () => Decision.finish("a".repeat(90)),
  }).run("g");
  assert.equal(fine.status, "completed");
  const reason = await new Agent({
    tools: [echo],
    planner: () => ({ type: "act", tool: "echo", args: {}, reason: "r".repeat(10_001) }),
  }).run("g");
  assert.equal(reason.failure?.code, "invalid_decision");
  assert.throws(() => Approval.grant("d".repeat(64), "ann", "n".repeat(10_001)), code("not_json"));
  assert.equal(Approval.grant("d".repeat(64), "ann", "n".repeat(10_000)).note?.length, 10_000);
});
