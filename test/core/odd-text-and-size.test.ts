// Text that is not well-formed UTF-16 and values that are too big: one rule at each boundary, and a
// run that always ends with a code instead of a raw error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, LeashError, MemoryStore, RunState, allow, block, tool } from "../../src/index.js";
import type { Planner } from "../../src/index.js";

const LONE = "pay \ud800 now";

const once =
  (tool: string): Planner =>
  (state) =>
    state.steps.length === 0 ? Decision.act(tool, {}) : Decision.finish(state.steps[0]?.outcome ?? null);

test("a decision's reason with a lone surrogate is refused: the run fails with invalid_decision", async () => {
  const page = tool({ name: "page", execute: () => "text" });
  const agent = new Agent({ tools: [page], planner: () => Decision.act("page", {}, { reason: LONE }) });
  const state = await agent.run("read");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "invalid_decision");
  assert.match(state.failure?.message ?? "", /reason/);
});

test("a guard's why with a lone surrogate is refused: the run fails with guard_failed, checkpointed", async () => {
  let ran = 0;
  const page = tool({
    name: "page",
    execute: () => {
      ran += 1;
      return "text";
    },
  });
  const store = new MemoryStore();
  for (const point of ["beforeTool", "afterTool"] as const) {
    const agent = new Agent({
      tools: [page],
      planner: once("page"),
      store,
      guards: [{ name: "Rules", [point]: () => block(LONE) }],
    });
    const state = await agent.run("read", { runId: point });
    assert.equal(state.status, "failed", point);
    assert.equal(state.failure?.code, "guard_failed");
    assert.deepEqual((await store.load(point))?.toJSON(), state.toJSON());
  }
  assert.equal(ran, 1); // only afterTool let it run
});

test("a done criterion's refusal with a lone surrogate fails the run with done_failed", async () => {
  const agent = new Agent({ tools: [], planner: () => Decision.finish("x"), done: () => LONE });
  const state = await agent.run("answer");
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "done_failed");
});

test("an approval note or approver with a lone surrogate is refused where it is made (not_json)", () => {
  const digest = "b".repeat(64);
  const notJson = (error: unknown) => error instanceof LeashError && error.code === "not_json";
  assert.throws(() => Approval.grant(digest, "allen", LONE), notJson);
  assert.throws(() => Approval.deny(digest, LONE), notJson);
  assert.throws(() => Approval.fromJSON({ digest, granted: true, approver: "allen", note: LONE }), notJson);
});

test("a planner or guard that throws an odd value fails the run with its code and well-formed text", async () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const page = tool({ name: "page", execute: () => "text" });
  const planned = await new Agent({
    tools: [page],
    planner: () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- an odd thrown value is the point
      throw proxy;
    },
  }).run("plan");
  assert.equal(planned.failure?.code, "planner_failed");
  assert.ok(planned.failure?.message.isWellFormed());
  const guarded = await new Agent({
    tools: [page],
    planner: once("page"),
    guards: [
      {
        name: "Rules",
        beforeTool: () => {
          throw new Error(LONE);
        },
      },
      { name: "Other", beforeTool: () => allow() },
    ],
  }).run("guard");
  assert.equal(guarded.failure?.code, "guard_failed");
  assert.ok(guarded.failure?.message.isWellFormed());
});

test("a tool result over maxResultSize is a tool_error step (result_too_large); the run goes on", async () => {
  const big = tool({ name: "big", execute: () => "x".repeat(2_000) });
  const store = new MemoryStore();
  const agent = new Agent({ tools: [big], planner: once("big"), store, maxResultSize: 1_000 });
  const state = await agent.run("fetch", { runId: "big" });
  assert.equal(state.status, "completed");
  assert.equal(state.steps[0]?.outcome, "tool_error");
  assert.equal(state.steps[0]?.error?.code, "result_too_large");
  assert.match(state.steps[0]?.error?.message ?? "", /1000 characters/);
  assert.equal(state.steps[0]?.result, null);
  assert.ok((await store.load("big")) instanceof RunState);
  const fits = await new Agent({ tools: [big], planner: once("big"), maxResultSize: 2_002 }).run("fetch");
  assert.equal(fits.steps[0]?.outcome, "executed");
});

test("the default maxResultSize is 1,000,000 characters of JSON, and a bad one is refused (invalid_option)", async () => {
  const big = tool({ name: "big", execute: () => "x".repeat(1_000_000) });
  const state = await new Agent({ tools: [big], planner: once("big") }).run("fetch");
  assert.equal(state.steps[0]?.error?.code, "result_too_large");
  for (const maxResultSize of [0, -1, 1.5, Number.NaN, "10" as unknown as number]) {
    assert.throws(
      () => new Agent({ tools: [big], planner: once("big"), maxResultSize }),
      (error: unknown) => error instanceof LeashError && error.code === "invalid_option",
    );
  }
});

test("an answer nested 2,500 deep fails the run with invalid_decision, and the state loads", async () => {
  let answer: unknown = 1;
  for (let level = 0; level < 2_500; level++) answer = { a: answer };
  const store = new MemoryStore();
  const state = await new Agent({ tools: [], planner: () => Decision.finish(answer), store }).run("deep", {
    runId: "deep-answer",
  });
  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "invalid_decision");
  assert.match(state.failure?.message ?? "", /256/);
  assert.ok((await store.load("deep-answer")) instanceof RunState);
});

test("a saved state with a value nested too deep is refused with invalid_state naming the depth, at any depth", async () => {
  const state = await new Agent({ tools: [], planner: () => Decision.finish("a") }).run("x");
  const text = JSON.stringify(state.toJSON());
  for (const depth of [300, 2_500, 200_000]) {
    const deep = text.replace('"answer":"a"', `"answer":${"[".repeat(depth)}${"]".repeat(depth)}`);
    assert.notEqual(deep, text);
    assert.throws(
      () => RunState.fromJSON(deep),
      (error: unknown) =>
        error instanceof LeashError &&
        error.code === "invalid_state" &&
        error.message.includes("256") &&
        error.message.length < 1_000,
    );
  }
});
