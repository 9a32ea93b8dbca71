// A person's raise of a shared budget's limit (API.md sections 16 and 17), on every store setup: the
// raise is one atomic change of the store, so it never lowers a limit raised further meanwhile, never
// drops a limit added meanwhile, never puts back a limit removed meanwhile, and is made before the
// claim that records it, so a crash in between leaves the budget raised and the run paused.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval } from "../../src/index.js";
import type { AuditRecord, LimitApprovalRequest, RunState } from "../../src/index.js";
import type { BudgetStore, Setup, SetupKind } from "./budget-helpers.js";
import { SETUPS, tick, ticker, verifiesClean } from "./budget-helpers.js";

/** An agent on the setup's store (or another store object on the same data), asking to raise the budget. */
function agentOn(kind: SetupKind, setup: Setup, calls: string[], store: BudgetStore = setup.store): Agent {
  return new Agent({
    tools: [tick(calls)],
    planner: ticker(3),
    store,
    ...(store === setup.store ? { audit: setup.audit } : kind.sink ? {} : { audit: setup.audit }),
    budget: () => "team",
    limits: { askToRaise: ["budget"] },
  });
}

function limitPending(state: RunState): LimitApprovalRequest {
  assert.equal(state.status, "awaiting_approval", JSON.stringify(state.toJSON()));
  const pending = state.pending;
  assert.equal(pending?.kind, "limit");
  return pending;
}

/** The limits of each `budget_set` of the budget's chain, with who set them. */
async function budgetSets(setup: Setup): Promise<Record<string, unknown>[]> {
  const records: AuditRecord[] = await setup.store.read("budget:team");
  return records
    .filter((record) => record.event === "budget_set")
    .map((record) => {
      const { maxCost, maxTokens, maxToolCalls, by } = record.data as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries({ maxCost, maxTokens, maxToolCalls, by }).filter(([, v]) => v !== undefined),
      );
    });
}

async function limitRaised(setup: Setup, runId: string): Promise<unknown[]> {
  return (await setup.audit.read(runId))
    .filter((record) => record.event === "limit_raised")
    .map((record) => record.data);
}

/** Two runs paused on the budget's two tool calls: `a` after two calls, `b` before any. */
async function pausedPair(kind: SetupKind, setup: Setup, calls: string[]) {
  await setup.store.setBudget("team", { maxToolCalls: 2 });
  const agent = agentOn(kind, setup, calls);
  const a = limitPending(await agent.run("tick", { runId: "a" }));
  const b = limitPending(await agent.run("tick", { runId: "b" }));
  return { a, b };
}

for (const kind of SETUPS) {
  describe(`raising a shared budget, ${kind.name}`, () => {
    test("two paused runs raised at once to 10 and 5 leave the budget at 10, and both go on", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const { a, b } = await pausedPair(kind, setup, calls);
      const other = setup.reopen();
      const [doneA, doneB] = await Promise.all([
        agentOn(kind, setup, calls).resume("a", { approvals: [Approval.raise(a.digest, "alice", 10)] }),
        agentOn(kind, setup, calls, other).resume("b", { approvals: [Approval.raise(b.digest, "bob", 5)] }),
      ]);
      assert.equal(doneA.status, "completed", JSON.stringify(doneA.toJSON()));
      assert.equal(doneB.status, "completed", JSON.stringify(doneB.toJSON()));
      const budget = (await setup.store.budget("team"))!;
      assert.equal(budget.maxToolCalls, 10);
      assert.equal(budget.spent.toolCalls, 6);
      const sets = await budgetSets(setup);
      assert.deepEqual(sets.at(-1), { maxToolCalls: 10, by: "alice" });
      // Bob's raise is recorded only when it landed first, below alice's.
      assert.ok(sets.length === 2 || (sets.length === 3 && sets[1]!.by === "bob"), JSON.stringify(sets));
      await verifiesClean(setup, "a");
      await verifiesClean(setup, "b");
    });

    test("a raise below one made meanwhile leaves the higher limit, records no budget change, and the run goes on", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const { a, b } = await pausedPair(kind, setup, calls);
      const agent = agentOn(kind, setup, calls);
      await agent.resume("a", { approvals: [Approval.raise(a.digest, "alice", 10)] });
      const done = await agent.resume("b", { approvals: [Approval.raise(b.digest, "bob", 5)] });
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      assert.equal((await setup.store.budget("team"))!.maxToolCalls, 10);
      assert.deepEqual(await budgetSets(setup), [{ maxToolCalls: 2 }, { maxToolCalls: 10, by: "alice" }]);
      // The run's trail says the raise as its request saw the limit.
      assert.deepEqual(await limitRaised(setup, "b"), [{ limit: "budget_tool_calls", from: 2, to: 5, by: "bob" }]);
      await verifiesClean(setup, "b");
    });

    test("a raise keeps a maxCost that a setBudget added just before it, and one racing it", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const { a, b } = await pausedPair(kind, setup, calls);
      const other = setup.reopen();
      // The cap is added after the resume decided on the raise and before the raise is made.
      const store = setup.store;
      const raise = store.raiseBudget.bind(store);
      store.raiseBudget = async (...args) => {
        store.raiseBudget = raise;
        await other.setBudget("team", { maxToolCalls: 2, maxCost: 3 }, { by: "cfo" });
        return raise(...args);
      };
      const done = await agentOn(kind, setup, calls).resume("a", {
        approvals: [Approval.raise(a.digest, "alice", 10)],
      });
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      const budget = (await setup.store.budget("team"))!;
      assert.deepEqual([budget.maxToolCalls, budget.maxCost], [10, 3]);
      assert.deepEqual(await budgetSets(setup), [
        { maxToolCalls: 2 },
        { maxToolCalls: 2, maxCost: 3, by: "cfo" },
        { maxToolCalls: 10, maxCost: 3, by: "alice" },
      ]);
      await verifiesClean(setup, "a");
      // Racing: whichever lands first, the cap stays.
      const [resumed] = await Promise.all([
        agentOn(kind, setup, calls).resume("b", { approvals: [Approval.raise(b.digest, "bob", 20)] }),
        other.setBudget("team", { maxToolCalls: 10, maxCost: 4 }, { by: "cfo" }),
      ]);
      assert.ok(resumed.status === "completed" || resumed.status === "awaiting_approval", resumed.status);
      assert.equal((await setup.store.budget("team"))!.maxCost, 4);
      await verifiesClean(setup, "b");
    });

    test("a raise of a limit removed meanwhile puts nothing back, and the run goes on with no limit", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const { a } = await pausedPair(kind, setup, calls);
      await setup.store.setBudget("team", {}, { by: "cfo" });
      const done = await agentOn(kind, setup, calls).resume("a", {
        approvals: [Approval.raise(a.digest, "alice", 10)],
      });
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      const budget = (await setup.store.budget("team"))!;
      assert.deepEqual(budget, { key: "team", spent: { cost: 0, tokens: 0, toolCalls: 3 } });
      assert.deepEqual(await budgetSets(setup), [{ maxToolCalls: 2 }, { by: "cfo" }]);
      assert.deepEqual(await limitRaised(setup, "a"), [{ limit: "budget_tool_calls", from: 2, to: 10, by: "alice" }]);
      await verifiesClean(setup, "a");
    });

    test("a crash between the budget's raise and the claim leaves the budget raised and the run paused with its answer; a later resume completes with one budget_set", async (t) => {
      const setup = kind.make(t);
      const calls: string[] = [];
      const { a } = await pausedPair(kind, setup, calls);
      await setup.store.answer("a", Approval.raise(a.digest, "alice", 10, "more calls"));
      const store = setup.store;
      const save = store.save.bind(store);
      const raise = store.raiseBudget.bind(store);
      let raised = false;
      store.raiseBudget = async (...args) => {
        const after = await raise(...args);
        raised = true;
        return after;
      };
      store.save = (state, options) => {
        if (!raised) return save(state, options);
        // The process dies here: the claim is never saved.
        store.save = save;
        return Promise.reject(new Error("process died"));
      };
      await assert.rejects(agentOn(kind, setup, calls).resume("a"), /process died/);
      const paused = (await setup.store.load("a"))!;
      assert.equal(paused.status, "awaiting_approval");
      assert.equal(paused.answers.length, 1);
      assert.equal((await setup.store.budget("team"))!.maxToolCalls, 10);
      assert.deepEqual(await budgetSets(setup), [{ maxToolCalls: 2 }, { maxToolCalls: 10, by: "alice" }]);
      assert.deepEqual(await limitRaised(setup, "a"), []);
      const done = await agentOn(kind, setup, calls).resume("a");
      assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
      assert.equal(calls.length, 3);
      assert.deepEqual(await budgetSets(setup), [{ maxToolCalls: 2 }, { maxToolCalls: 10, by: "alice" }]);
      assert.deepEqual(await limitRaised(setup, "a"), [{ limit: "budget_tool_calls", from: 2, to: 10, by: "alice" }]);
      await verifiesClean(setup, "a");
    });
  });
}
