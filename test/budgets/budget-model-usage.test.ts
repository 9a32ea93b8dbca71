// A model call's usage reaches the shared budget as soon as the call returns (API.md section 17):
// other runs see it before their next model call, so concurrent runs pass a budget by at most the
// calls in flight, and a run that dies before its next save has still been charged for the call.
// And the amounts a budget keeps stay exact: limits and spends past 2^53 are refused or capped.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Gate, MemoryStore, Policy, isLeashError, tool } from "../../src/index.js";
import type { Planner } from "../../src/index.js";
import { SETUPS, model } from "./budget-helpers.js";

/** A planner that makes `calls` model calls, one after another, then finishes. */
function modelCaller(client: ReturnType<typeof model>, calls: number): Planner {
  return async (_state, _tools, context) => {
    for (let made = 0; made < calls; made++) {
      try {
        await context.callModel(client, { system: "", messages: [], tools: [] });
      } catch (error) {
        if (isLeashError(error, "limit_reached")) break;
        throw error;
      }
    }
    return Decision.finish("done");
  };
}

for (const kind of SETUPS) {
  describe(`a model call's usage and the shared budget, ${kind.name}`, () => {
    test("the usage is in the budget before the run's next save: a run paused inside its planner has been charged", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 10_000 });
      const counted = { count: 0 };
      const client = model(100, 0.01, counted);
      let seen: unknown;
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const agent = new Agent({
        tools: [],
        store: setup.store,
        audit: setup.audit,
        budget: () => "team",
        planner: async (_state, _tools, context) => {
          await context.callModel(client, { system: "", messages: [], tools: [] });
          seen = (await setup.reopen().budget("team"))?.spent;
          await held;
          return Decision.finish("done");
        },
      });
      const running = agent.run("one call");
      // The planner read the budget after its call and before anything of the run was saved again.
      while (seen === undefined) await new Promise((resolve) => setImmediate(resolve));
      release();
      assert.equal((await running).status, "completed");
      assert.deepEqual(seen, { cost: 0.01, tokens: 100, toolCalls: 0 });
      assert.deepEqual((await setup.store.budget("team"))?.spent, { cost: 0.01, tokens: 100, toolCalls: 0 });
    });

    test("ten runs making model calls at once pass maxTokens by at most the calls in flight", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 1_000 });
      const counted = { count: 0 };
      const client = model(100, 0, counted);
      const agent = new Agent({
        tools: [],
        store: setup.store,
        audit: setup.audit,
        budget: () => "team",
        planner: modelCaller(client, 5),
      });
      const ends = await Promise.all(Array.from({ length: 10 }, (_, index) => agent.run(`run ${index}`)));
      const spent = (await setup.store.budget("team"))!.spent.tokens;
      assert.equal(spent, counted.count * 100, "every call made is in the budget");
      assert.ok(spent >= 1_000, `the budget was used up (${spent})`);
      assert.ok(spent <= 1_000 + 10 * 100, `at most one call per run in flight past the limit (${spent})`);
      assert.ok(ends.every((state) => state.status !== "running"));
    });
  });
}

describe("amounts a budget keeps stay exact", () => {
  test("a limit past 2^53 - 1 is refused with invalid_option and nothing is stored", async () => {
    const store = new MemoryStore();
    for (const limits of [{ maxCost: Number.MAX_VALUE }, { maxCost: 1e16 }, { maxTokens: 2 ** 53 }]) {
      await assert.rejects(store.setBudget("team", limits), (error) => isLeashError(error, "invalid_option"));
    }
    assert.equal(await store.budget("team"), null);
    assert.deepEqual(store.records, []);
  });

  test("a spend that would pass 2^53 - 1 is capped there, and the budget can still be reset", async () => {
    const gateStore = new MemoryStore();
    await gateStore.setBudget("team", { maxTokens: 10 });
    const gate = new Gate({ tools: [], store: gateStore, budget: () => "team" });
    const first = await gate.session("big-1");
    await first.charge({ tokens: Number.MAX_SAFE_INTEGER, cost: 0 });
    const second = await gate.session("big-2");
    await second.charge({ tokens: Number.MAX_SAFE_INTEGER, cost: 0 }).catch(() => undefined);
    assert.equal((await gateStore.budget("team"))?.spent.tokens, Number.MAX_SAFE_INTEGER);
    const reset = await gateStore.resetBudget("team");
    assert.deepEqual(reset.spent, { cost: 0, tokens: 0, toolCalls: 0 });
  });

  test("a gate's charge of a cost past 2^53 - 1 is refused with invalid_option and charges nothing", async () => {
    const store = new MemoryStore();
    await store.setBudget("team", { maxCost: 100 });
    const session = await new Gate({ tools: [], store, budget: () => "team" }).session("costly");
    assert.throws(
      () => session.charge({ tokens: 1, cost: 1e16 }),
      (error) => isLeashError(error, "invalid_option"),
    );
    assert.deepEqual((await store.budget("team"))?.spent, { cost: 0, tokens: 0, toolCalls: 0 });
  });

  test("a raise of a budget's count past 2^53 - 1 is refused with invalid_answer and nothing is recorded", async () => {
    const store = new MemoryStore();
    await store.setBudget("team", { maxToolCalls: 1 });
    const paid = tool({ name: "tick", execute: () => "ok" });
    const agent = new Agent({
      tools: [paid],
      store,
      policy: new Policy({ allowEffects: ["read"] }),
      budget: () => "team",
      limits: { askToRaise: ["budget"] },
      planner: (state) => (state.toolCalls < 2 ? Decision.act("tick", {}) : Decision.finish("done")),
    });
    const paused = await agent.run("tick twice", { runId: "raise-big" });
    assert.equal(paused.status, "awaiting_approval");
    const before = (await store.read("raise-big")).length;
    for (const to of [1e20, 2 ** 53]) {
      await assert.rejects(store.answer("raise-big", Approval.raise(paused.pending!.digest, "noor", to)), (error) =>
        isLeashError(error, "invalid_answer"),
      );
    }
    assert.equal((await store.read("raise-big")).length, before);
  });
});
