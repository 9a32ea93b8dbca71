// Shared budgets in the run loop (API.md section 17): runs of agents sharing a budget stop exactly at
// its limits, on every store setup (the store as the sink, and a separate sink).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Policy, isLeashError, tool } from "../../src/index.js";
import type { LimitApprovalRequest, RunState } from "../../src/index.js";
import type { Setup } from "./budget-helpers.js";
import { SETUPS, model, modelTicker, near, tick, ticker, verifiesClean } from "./budget-helpers.js";

function agentOn(setup: Setup, options: Partial<ConstructorParameters<typeof Agent>[0]> & { calls: string[] }) {
  const { calls, ...rest } = options;
  return new Agent({
    tools: [tick(calls)],
    planner: ticker(1),
    store: setup.store,
    audit: setup.audit,
    budget: () => "team",
    ...rest,
  });
}

function lastStep(state: RunState) {
  return state.steps.at(-1)!;
}

function limitPending(state: RunState): LimitApprovalRequest {
  assert.equal(state.status, "awaiting_approval", JSON.stringify(state.toJSON()));
  const pending = state.pending;
  assert.equal(pending?.kind, "limit");
  return pending;
}

for (const kind of SETUPS) {
  describe(`shared budgets, ${kind.name}`, () => {
    test("two runs sharing a budget make exactly maxToolCalls calls, the second stopped at budget_tool_calls", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 3 });
      const calls: string[] = [];
      const agent = agentOn(setup, { calls, planner: ticker(2) });
      const first = await agent.run("tick twice", { runId: "first" });
      assert.equal(first.status, "completed");
      const second = await agent.run("tick twice", { runId: "second" });
      assert.equal(second.status, "stopped");
      assert.equal(second.stopReason, "budget_tool_calls");
      assert.equal(second.toolCalls, 1);
      assert.equal(lastStep(second).outcome, "stopped");
      assert.equal(lastStep(second).error?.code, "budget_tool_calls");
      assert.deepEqual(calls, ["first", "first", "second"]);
      assert.equal((await setup.store.budget("team"))!.spent.toolCalls, 3);
      const trail = await setup.audit.read("second");
      assert.equal(trail.filter((record) => record.event === "tool_started").length, 1, "no start of the refused call");
      await verifiesClean(setup, "first");
      await verifiesClean(setup, "second");
    });

    test("two runs sharing a budget spend exactly maxCost, the second stopped at budget_cost", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxCost: 0.5 });
      const calls: string[] = [];
      const agent = agentOn(setup, { calls, tools: [tick(calls, 0.1)], planner: ticker(3) });
      assert.equal((await agent.run("tick", { runId: "first" })).status, "completed");
      const second = await agent.run("tick", { runId: "second" });
      assert.equal(second.stopReason, "budget_cost");
      assert.equal(second.toolCalls, 2);
      near(second.usage.cost, 0.2);
      assert.equal(calls.length, 5);
      near((await setup.store.budget("team"))!.spent.cost, 0.5);
      await verifiesClean(setup, "second");
    });

    test("a second agent with its own store object on the same data sees the first's spend", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 2 });
      const calls: string[] = [];
      const one = agentOn(setup, { calls, planner: ticker(2) });
      assert.equal((await one.run("tick", { runId: "one" })).status, "completed");
      const other = setup.reopen();
      const two = new Agent({
        tools: [tick(calls)],
        planner: ticker(2),
        store: other,
        ...(kind.sink ? {} : { audit: setup.audit }),
        budget: () => "team",
      });
      const state = await two.run("tick", { runId: "two" });
      assert.equal(state.stopReason, "budget_tool_calls");
      assert.equal(state.toolCalls, 0);
      assert.equal((await other.budget("team"))!.spent.toolCalls, 2);
    });

    test("a model call is refused at budget_tokens once the budget's tokens are spent, its usage taken after it", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 100 });
      const calls: string[] = [];
      const answered = { count: 0 };
      const agent = agentOn(setup, { calls, planner: modelTicker(model(60, 0, answered), 5) });
      const state = await agent.run("think", { runId: "thinker" });
      assert.equal(state.status, "stopped");
      assert.equal(state.stopReason, "budget_tokens");
      assert.equal(answered.count, 2, "the second call started below the limit; the third did not start");
      assert.equal((await setup.store.budget("team"))!.spent.tokens, 120);
      await verifiesClean(setup, "thinker");
    });

    test("a model call is refused at budget_cost once the budget's spend reached maxCost", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxCost: 0.5 });
      const calls: string[] = [];
      const answered = { count: 0 };
      const agent = agentOn(setup, { calls, planner: modelTicker(model(10, 0.3, answered), 5) });
      const state = await agent.run("think", { runId: "spender" });
      assert.equal(state.stopReason, "budget_cost");
      assert.equal(answered.count, 2);
      near((await setup.store.budget("team"))!.spent.cost, 0.6);
      await verifiesClean(setup, "spender");
    });

    test("a paid planner's own usage is taken from the budget, and it is not asked once the budget is spent", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 100 });
      const calls: string[] = [];
      const planner = () => Decision.act("tick", {}, { usage: { tokens: 60, cost: 0 } });
      const agent = agentOn(setup, { calls, planner });
      const state = await agent.run("tick", { runId: "paid" });
      assert.equal(state.stopReason, "budget_tokens");
      assert.equal(state.steps.length, 2);
      assert.equal((await setup.store.budget("team"))!.spent.tokens, 120);
    });

    test("when the run's own limit and its budget both stop a call, the run's own reason is given", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 2, maxCost: 0.2 });
      const calls: string[] = [];
      const agent = agentOn(setup, { calls, tools: [tick(calls, 0.1)], planner: ticker(5) });
      const byCalls = await agent.run("tick", { runId: "calls", limits: { maxToolCalls: 2 } });
      assert.equal(byCalls.stopReason, "max_tool_calls");
      await setup.store.resetBudget("team");
      const byCost = await agent.run("tick", { runId: "cost", limits: { maxCost: 0.2 } });
      assert.equal(byCost.stopReason, "max_cost");
    });

    test("the key is worked out once, saved in the state and recorded in run_started", async (t) => {
      const setup = kind.make(t);
      const asked: unknown[] = [];
      const agent = new Agent({
        tools: [tick([])],
        planner: ticker(0),
        store: setup.store,
        audit: setup.audit,
        name: "payer",
        budget: (run) => {
          asked.push(run);
          return run.principal === undefined ? undefined : `team-${run.principal}`;
        },
      });
      const state = await agent.run("goal", { runId: "keyed", principal: "mia" });
      assert.equal(state.budget, "team-mia");
      assert.deepEqual(asked, [{ runId: "keyed", goal: "goal", principal: "mia", agent: "payer" }]);
      assert.equal((await setup.store.load("keyed"))!.budget, "team-mia");
      const started = (await setup.audit.read("keyed"))[0]!;
      assert.equal((started.data as { budget?: string }).budget, "team-mia");
      const none = await agent.run("goal", { runId: "unkeyed" });
      assert.equal(none.budget, undefined);
      assert.equal("budget" in ((await setup.audit.read("unkeyed"))[0]!.data as object), false);
      await verifiesClean(setup, "keyed");
    });

    test("a key with no budget set limits nothing and counts nothing", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const state = await agentOn(setup, { calls, planner: ticker(3) }).run("tick", { runId: "free" });
      assert.equal(state.status, "completed");
      assert.equal(await setup.store.budget("team"), null);
    });

    test("a budget option that throws or names no valid key rejects run with invalid_option and writes nothing", async (t) => {
      const setup = kind.make(t);
      for (const [index, budget] of [
        () => {
          throw new Error("no team");
        },
        () => "",
        () => 42 as unknown as string,
        () => "a\nb",
      ].entries()) {
        const agent = agentOn(setup, { calls: [], budget });
        await assert.rejects(agent.run("goal", { runId: `bad-${index}` }), (error) =>
          isLeashError(error, "invalid_option"),
        );
        assert.equal(await setup.store.load(`bad-${index}`), null);
        assert.deepEqual(await setup.audit.read(`bad-${index}`), []);
      }
    });

    test("a call withdrawn because a cancel landed while its charge was taken gives its charge back", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 5, maxCost: 1 });
      const calls: string[] = [];
      const agent = agentOn(setup, { calls, tools: [tick(calls, 0.25)], planner: ticker(2) });
      // The cancel lands while the budget takes the call's charge (the intent's save, or the
      // charge's own transaction with a separate sink): the call must not start.
      const store = setup.store;
      const save = store.save.bind(store);
      const charge = store.chargeBudget.bind(store);
      store.save = (state, options) => {
        if (options.budgetCharge?.check === "tool") void agent.cancel(state.runId);
        return save(state, options);
      };
      store.chargeBudget = (taken) => {
        if (taken.check === "tool") void agent.cancel("withdrawn");
        return charge(taken);
      };
      const state = await agent.run("tick", { runId: "withdrawn" });
      assert.equal(state.stopReason, "cancelled");
      assert.deepEqual(calls, []);
      assert.equal(state.toolCalls, 0);
      const budget = (await setup.store.budget("team"))!;
      assert.deepEqual(budget.spent, { cost: 0, tokens: 0, toolCalls: 0 });
      await verifiesClean(setup, "withdrawn");
    });

    test("a call started again after a crash is not charged to the budget a second time", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 5, maxCost: 5 });
      let starts = 0;
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      const flaky = tool({
        name: "tick",
        cost: 1,
        idempotent: true,
        // The first start never ends, as in a process that died during the call.
        execute: () => {
          starts += 1;
          if (starts === 1) {
            started();
            return new Promise(() => undefined);
          }
          return "done";
        },
      });
      const first = agentOn(setup, { calls: [], tools: [flaky], planner: ticker(1) });
      void first.run("tick", { runId: "crashed" });
      await running;
      const recovering = agentOn(setup, { calls: [], tools: [flaky], planner: ticker(1) });
      const done = await recovering.resume("crashed");
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      assert.equal(starts, 2);
      const budget = (await setup.store.budget("team"))!;
      assert.deepEqual(budget.spent, { cost: 1, tokens: 0, toolCalls: 1 });
      await verifiesClean(setup, "crashed");
    });

    test("askToRaise naming budget pauses at the budget; a raise goes on and changes the budget for every run", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxToolCalls: 2, maxCost: 10 });
      const calls: string[] = [];
      const agent = agentOn(setup, {
        calls,
        planner: ticker(3),
        limits: { askToRaise: ["budget"] },
        policy: new Policy({ mayApprove: (approver) => approver !== "mallory" }),
      });
      const paused = await agent.run("tick", { runId: "raised" });
      const pending = limitPending(paused);
      assert.deepEqual(
        { limit: pending.limit, used: pending.used, allowed: pending.allowed, step: pending.step },
        { limit: "budget_tool_calls", used: 2, allowed: 2, step: 2 },
      );
      assert.equal(paused.steps[2]!.outcome, null);
      await verifiesClean(setup, "raised");
      // Someone the policy does not allow changes nothing.
      await assert.rejects(agent.resume("raised", { approvals: [Approval.raise(pending.digest, "mallory", 9)] }));
      assert.equal((await setup.store.budget("team"))!.maxToolCalls, 2);
      // A raise that is not above what was used is refused before anything is written.
      await assert.rejects(
        agent.resume("raised", { approvals: [Approval.raise(pending.digest, "noor", 2)] }),
        (error) => isLeashError(error, "invalid_answer"),
      );
      await setup.store.answer("raised", Approval.raise(pending.digest, "noor", 4, "month end"));
      const done = await agent.resume("raised");
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      assert.equal(calls.length, 3);
      const budget = (await setup.store.budget("team"))!;
      assert.deepEqual(
        { maxToolCalls: budget.maxToolCalls, maxCost: budget.maxCost },
        { maxToolCalls: 4, maxCost: 10 },
      );
      const raised = (await setup.audit.read("raised")).filter((record) => record.event === "limit_raised");
      assert.deepEqual(
        raised.map((record) => record.data),
        [{ limit: "budget_tool_calls", from: 2, to: 4, by: "noor" }],
      );
      const changes = (await setup.store.read("budget:team")).filter((record) => record.event === "budget_set");
      assert.equal((changes.at(-1)!.data as { by?: string }).by, "noor");
      await verifiesClean(setup, "raised");
      // Another run spends from the raised budget: one call left.
      const other = await agent.run("tick", { runId: "other" });
      const otherPending = limitPending(other);
      assert.equal(otherPending.used, 4);
      assert.equal(other.toolCalls, 1);
      // A denial ends it stopped with the budget's reason.
      const denied = await agent.resume("other", { approvals: [Approval.deny(otherPending.digest, "noor")] });
      assert.equal(denied.status, "stopped");
      assert.equal(denied.stopReason, "budget_tool_calls");
      assert.equal(denied.steps.at(-1)!.outcome, "stopped");
      await verifiesClean(setup, "other");
    });

    test("askToRaise naming budget pauses before the planner when a model call is refused", async (t) => {
      const setup = kind.make(t);
      await setup.store.setBudget("team", { maxTokens: 100 });
      const answered = { count: 0 };
      const agent = agentOn(setup, {
        calls: [],
        planner: modelTicker(model(60, 0, answered), 2),
        limits: { askToRaise: ["budget"] },
      });
      const paused = await agent.run("think", { runId: "thinking" });
      const pending = limitPending(paused);
      assert.deepEqual([pending.limit, pending.used, pending.allowed], ["budget_tokens", 120, 100]);
      const done = await agent.resume("thinking", { approvals: [Approval.raise(pending.digest, "noor", 1000)] });
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      assert.equal((await setup.store.budget("team"))!.maxTokens, 1000);
      await verifiesClean(setup, "thinking");
    });
  });
}

test("a budget that is not a function, or without a store that keeps budgets, is invalid_option", () => {
  const planner = ticker(0);
  for (const options of [
    { budget: "team" as unknown as () => string },
    { budget: () => "team" },
    { budget: () => "team", store: { create() {}, load() {}, save() {}, list() {}, answer() {} } as never },
  ]) {
    assert.throws(
      () => new Agent({ tools: [], planner, ...options }),
      (error) => isLeashError(error, "invalid_option") && /budget/.test(error.message),
    );
  }
});
