// Shared budgets at the gate (API.md sections 17 and 18): a session's calls and its charges of
// model usage are taken from its budget, and a session stops at it; a session never asks to raise.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Gate, isLeashError } from "../../src/index.js";
import { SETUPS, near, tick, verifiesClean } from "./budget-helpers.js";

for (const kind of SETUPS.filter((each) => each.sink)) {
  describe(`shared budgets at the gate, ${kind.name}`, () => {
    test("calls of two sessions sharing a budget run up to maxToolCalls; the next stops its session at budget_tool_calls", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 3 });
      const calls: string[] = [];
      const named: unknown[] = [];
      const gate = new Gate({
        tools: [tick(calls, 0.1)],
        store: setup.store,
        name: "support",
        budget: (run) => {
          named.push(run);
          return "team";
        },
      });
      const one = await gate.session("one", { goal: "help", principal: "mia" });
      assert.deepEqual(named, [{ runId: "one", goal: "help", principal: "mia", agent: "support" }]);
      assert.equal(one.state.budget, "team");
      assert.equal((await one.call("a", "tick", {})).status, "executed");
      assert.equal((await one.call("b", "tick", {})).status, "executed");
      const two = await gate.session("two");
      assert.equal((await two.call("a", "tick", {})).status, "executed");
      assert.deepEqual(await two.call("b", "tick", {}), { status: "stopped", reason: "budget_tool_calls" });
      assert.equal(calls.length, 3);
      const ended = await setup.store.load("two");
      assert.equal(ended!.status, "stopped");
      assert.equal(ended!.stopReason, "budget_tool_calls");
      assert.equal(ended!.toolCalls, 1);
      const budget = (await setup.store.budget("team"))!;
      assert.equal(budget.spent.toolCalls, 3);
      near(budget.spent.cost, 0.3);
      // The session that did not reach it goes on, and so does the same call id: it gives its answer again.
      assert.deepEqual(await two.call("b", "tick", {}), { status: "stopped", reason: "budget_tool_calls" });
      await verifiesClean(setup, "one");
      await verifiesClean(setup, "two");
    });

    test("session.charge takes model usage from the budget, and the charge that reaches it stops the session", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 100, maxCost: 1 });
      const gate = new Gate({ tools: [tick([])], store: setup.store, budget: () => "team" });
      const session = await gate.session("chat");
      const first = await session.charge({ tokens: 60, cost: 0.2 });
      assert.equal(first.status, "charged");
      assert.equal((await setup.store.budget("team"))!.spent.tokens, 60);
      const second = await session.charge({ tokens: 60, cost: 0.2 });
      assert.deepEqual(second, { status: "stopped", reason: "budget_tokens" });
      const budget = (await setup.store.budget("team"))!;
      assert.equal(budget.spent.tokens, 120);
      near(budget.spent.cost, 0.4);
      // Another session of the same budget stops at its first charge, since no model may be called any more.
      const other = await gate.session("other");
      assert.deepEqual(await other.charge({ tokens: 1, cost: 0 }), { status: "stopped", reason: "budget_tokens" });
      await verifiesClean(setup, "chat");
    });

    test("a session's cost charges and its calls' costs count together against the budget's maxCost", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxCost: 0.5 });
      const calls: string[] = [];
      const gate = new Gate({ tools: [tick(calls, 0.2)], store: setup.store, budget: () => "team" });
      const session = await gate.session("mixed");
      assert.equal((await session.charge({ tokens: 0, cost: 0.2 })).status, "charged");
      assert.equal((await session.call("a", "tick", {})).status, "executed");
      assert.deepEqual(await session.call("b", "tick", {}), { status: "stopped", reason: "budget_cost" });
      assert.equal(calls.length, 1);
      near((await setup.store.budget("team"))!.spent.cost, 0.4);
      await verifiesClean(setup, "mixed");
    });
  });
}

test("a gate with a budget still refuses askToRaise, and a budget without a store that keeps budgets", () => {
  assert.throws(
    () =>
      new Gate({
        tools: [],
        store: SETUPS[0]!.make({} as never).store,
        budget: () => "team",
        limits: { askToRaise: ["budget"] },
      }),
    (error) => isLeashError(error, "invalid_option") && /askToRaise/.test(error.message),
  );
  assert.throws(
    () => new Gate({ tools: [], store: SETUPS[0]!.make({} as never).store, budget: "team" as never }),
    (error) => isLeashError(error, "invalid_option") && /budget/.test(error.message),
  );
});
