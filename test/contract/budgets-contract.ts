// Shared budgets in every store (API.md section 17): setting, reading, replacing and resetting them,
// their records under `budget:<key>`, the refusals of bad input (nothing stored), and the charges a
// save carries: a tool charge the budget has no room for refuses the whole save, which then writes
// nothing; saves of one store, and of two stores on one database, never take a budget past its limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError, verifyAudit } from "../../src/index.js";
import type { AuditRecord, AuditSink, RunStore } from "../../src/index.js";
import type { BudgetCharge } from "../../src/stores/budget-info.js";
import { chain, headOf, stateOf, withStore } from "./contract-fixtures.js";
import type { MakeStore, StoreUnderTest } from "./contract-fixtures.js";

type BudgetMethods =
  "setBudget" | "budget" | "resetBudget" | "budgets" | "chargeBudget" | "raiseBudget" | "grant" | "grants";
type BudgetStore = RunStore & AuditSink & Required<Pick<RunStore, BudgetMethods>>;

const NOTHING = { cost: 0, tokens: 0, toolCalls: 0 };

const refused =
  (code: string, details: Record<string, unknown> = {}) =>
  (error: unknown) =>
    isLeashError(error) &&
    error.code === code &&
    Object.entries(details).every(([name, value]) => (error.details as Record<string, unknown>)[name] === value);

/** A charge of a tool call's intent (check `tool`), or of what was spent after a call (`none`). */
function charge(key: string, amounts: Partial<typeof NOTHING>, check: "tool" | "none" = "tool"): BudgetCharge {
  return { key, ...NOTHING, ...amounts, check };
}

/** A run made with its first record, at revision 1, and the records of its next save. */
async function startRun(store: BudgetStore, runId: string): Promise<{ first: AuditRecord[]; next: AuditRecord[] }> {
  const first = chain(runId, 1);
  await store.create(stateOf(runId, { head: headOf(first) }), { records: first });
  return { first, next: chain(runId, 1, first[0], "tool_started") };
}

/** Saves a started run at revision 2 with its next record, carrying the charge. */
function saveCharged(store: BudgetStore, runId: string, next: AuditRecord[], budgetCharge: BudgetCharge) {
  return store.save(stateOf(runId, { revision: 2, head: headOf(next) }), {
    expectedRevision: 1,
    records: next,
    budgetCharge,
  });
}

/** Opens a second store on the same database as the one under test (another process would do the same). */
async function secondStore(child: NonNullable<StoreUnderTest["child"]>): Promise<BudgetStore> {
  if (child.kind === "sqlite") {
    const { SqliteStore } = await import("../../src/stores/sqlite/index.js");
    return new SqliteStore(child.location);
  }
  const { PostgresStore } = await import("../../src/stores/postgres/index.js");
  return new PostgresStore({ connectionString: child.location, schema: child.env?.LEASH_TEST_SCHEMA ?? "" });
}

/** The budget tests, on a fresh store each. */
export function budgetsContract(makeStore: MakeStore): void {
  const withBudgets = (body: (store: BudgetStore, child: StoreUnderTest["child"]) => Promise<void>) =>
    withStore(makeStore, (store, _raw, child) => body(store as BudgetStore, child));

  test("a budget is stored with the limits given and nothing spent; a key never set reads as null", () =>
    withBudgets(async (store) => {
      const set = await store.setBudget("team-a", { maxCost: 100, maxTokens: 5_000_000, maxToolCalls: 10_000 });
      const expected = { key: "team-a", maxCost: 100, maxTokens: 5_000_000, maxToolCalls: 10_000, spent: NOTHING };
      assert.deepEqual(set, expected);
      assert.deepEqual(await store.budget("team-a"), expected);
      assert.equal(await store.budget("team-b"), null);
    }));

  test("setting a budget again keeps exactly the limits given (one left out is removed) and keeps the spend", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 10, maxToolCalls: 3 });
      await store.chargeBudget(charge("team-a", { cost: 2.5, tokens: 700, toolCalls: 1 }, "none"));
      const changed = await store.setBudget("team-a", { maxTokens: 1000 }, { by: "noor", note: "tokens only" });
      const expected = { key: "team-a", maxTokens: 1000, spent: { cost: 2.5, tokens: 700, toolCalls: 1 } };
      assert.deepEqual(changed, expected);
      assert.deepEqual(await store.budget("team-a"), expected);
      const unlimited = await store.setBudget("team-a", {});
      assert.deepEqual(unlimited, { key: "team-a", spent: { cost: 2.5, tokens: 700, toolCalls: 1 } });
    }));

  test("a reset sets the spend back to zero, keeps the limits, and is recorded as budget_reset after the budget_set records, in a chain that verifies", () =>
    withBudgets(async (store) => {
      const origin = { via: "cli", user: "noor", host: "desk" };
      await store.setBudget("team-a", { maxCost: 10 }, { by: "noor", note: "first", origin });
      await store.chargeBudget(charge("team-a", { cost: 4, toolCalls: 2 }));
      await store.setBudget("team-a", { maxCost: 20 });
      const reset = await store.resetBudget("team-a", { by: "ada", note: "new month" });
      assert.deepEqual(reset, { key: "team-a", maxCost: 20, spent: NOTHING });
      assert.deepEqual(await store.budget("team-a"), reset);
      const records = await store.read("budget:team-a");
      assert.deepEqual(
        records.map((record) => [record.event, record.seq]),
        [
          ["budget_set", 0],
          ["budget_set", 1],
          ["budget_reset", 2],
        ],
      );
      assert.deepEqual(records[0]!.data, { key: "team-a", maxCost: 10, by: "noor", note: "first", origin });
      assert.deepEqual(records[1]!.data, { key: "team-a", maxCost: 20 });
      assert.deepEqual(records[2]!.data, {
        key: "team-a",
        cleared: { cost: 4, tokens: 0, toolCalls: 2 },
        by: "ada",
        note: "new month",
      });
      assert.deepEqual(verifyAudit(records), []);
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("resetting a key never set is budget_not_found, and nothing is stored or recorded", () =>
    withBudgets(async (store) => {
      await assert.rejects(store.resetBudget("nobody"), refused("budget_not_found", { budget: "nobody" }));
      assert.deepEqual(await store.budgets(), []);
      assert.deepEqual(await store.read(), []);
    }));

  test("budgets() lists every budget by key, whatever the order they were set in", () =>
    withBudgets(async (store) => {
      for (const key of ["team-b", "Team-c", "team-a", "team-a2"]) await store.setBudget(key, { maxToolCalls: 1 });
      assert.deepEqual(
        (await store.budgets()).map((budget) => budget.key),
        ["Team-c", "team-a", "team-a2", "team-b"],
      );
    }));

  test("bad keys, limits and change options are refused with invalid_option, and nothing is stored or recorded", () =>
    withBudgets(async (store) => {
      const badKeys: unknown[] = ["", "  ", "a\nb", "x".repeat(201), "half \uD800 pair", "\uDC00", 7, null, undefined];
      for (const key of badKeys) {
        await assert.rejects(store.setBudget(key as string, { maxCost: 1 }), refused("invalid_option"), String(key));
        await assert.rejects(store.resetBudget(key as string), refused("invalid_option"), String(key));
        await assert.rejects(store.budget(key as string), refused("invalid_option"), String(key));
      }
      const badLimits: unknown[] = [
        null,
        [],
        "10",
        { maxCost: -1 },
        { maxCost: Number.NaN },
        { maxCost: Number.POSITIVE_INFINITY },
        { maxCost: "5" },
        { maxTokens: 1.5 },
        { maxToolCalls: -2 },
        { maxToolCalls: 2 ** 53 },
        { maxCalls: 3 },
      ];
      for (const limits of badLimits) {
        await assert.rejects(
          store.setBudget("team-a", limits as never),
          refused("invalid_option"),
          JSON.stringify(limits),
        );
      }
      const badOptions: unknown[] = [
        "noor",
        [],
        { by: "" },
        { note: 7 },
        { by: "x".repeat(1001) },
        { origin: { via: "" } },
        { reason: "x" },
      ];
      for (const options of badOptions) {
        await assert.rejects(
          store.setBudget("team-a", { maxCost: 1 }, options as never),
          refused("invalid_option"),
          JSON.stringify(options),
        );
      }
      assert.deepEqual(await store.budgets(), []);
      assert.deepEqual(await store.read(), []);
      await store.setBudget("team-a", { maxCost: 1 });
      for (const options of badOptions) {
        await assert.rejects(store.resetBudget("team-a", options as never), refused("invalid_option"));
      }
      assert.deepEqual(
        (await store.read("budget:team-a")).map((record) => record.event),
        ["budget_set"],
      );
    }));

  test("raiseBudget raises a limit set below `to`, keeps every other limit and the spend, and records budget_set once with who raised it", () =>
    withBudgets(async (store) => {
      const origin = { via: "cli", user: "alice", host: "desk" };
      await store.setBudget("team-a", { maxCost: 10, maxTokens: 500, maxToolCalls: 3 });
      await store.chargeBudget(charge("team-a", { cost: 2, tokens: 40, toolCalls: 3 }, "none"));
      const raised = await store.raiseBudget("team-a", "maxToolCalls", 8, { by: "alice", note: "more", origin });
      const expected = {
        key: "team-a",
        maxCost: 10,
        maxTokens: 500,
        maxToolCalls: 8,
        spent: { cost: 2, tokens: 40, toolCalls: 3 },
      };
      assert.deepEqual(raised, expected);
      assert.deepEqual(await store.budget("team-a"), expected);
      const records = await store.read("budget:team-a");
      assert.deepEqual(
        records.map((record) => [record.event, record.seq]),
        [
          ["budget_set", 0],
          ["budget_set", 1],
        ],
      );
      assert.deepEqual(records[1]!.data, {
        key: "team-a",
        maxCost: 10,
        maxTokens: 500,
        maxToolCalls: 8,
        by: "alice",
        note: "more",
        origin,
      });
      assert.deepEqual(verifyAudit(await store.read()), []);
      // The same raise again changes and records nothing.
      assert.deepEqual(await store.raiseBudget("team-a", "maxToolCalls", 8, { by: "alice" }), expected);
      assert.equal((await store.read("budget:team-a")).length, 2);
      const cost = await store.raiseBudget("team-a", "maxCost", 12.5);
      assert.deepEqual(cost, { ...expected, maxCost: 12.5 });
      assert.equal((await store.read("budget:team-a")).length, 3);
    }));

  test("raiseBudget never lowers a limit: a raise to less than the limit, or to the limit, changes and records nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 10, maxTokens: 500 });
      const before = await store.budget("team-a");
      assert.deepEqual(await store.raiseBudget("team-a", "maxTokens", 200, { by: "bob" }), before);
      assert.deepEqual(await store.raiseBudget("team-a", "maxTokens", 500, { by: "bob" }), before);
      assert.deepEqual(await store.raiseBudget("team-a", "maxCost", 9.99), before);
      assert.deepEqual(await store.budget("team-a"), before);
      assert.deepEqual(
        (await store.read("budget:team-a")).map((record) => record.event),
        ["budget_set"],
      );
    }));

  test("raiseBudget never puts back a removed limit: a limit not set stays unset, and nothing is recorded", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxToolCalls: 2 });
      await store.setBudget("team-a", {});
      assert.deepEqual(await store.raiseBudget("team-a", "maxToolCalls", 10, { by: "alice" }), {
        key: "team-a",
        spent: NOTHING,
      });
      await store.setBudget("team-b", { maxCost: 5 });
      assert.deepEqual(await store.raiseBudget("team-b", "maxToolCalls", 10), {
        key: "team-b",
        maxCost: 5,
        spent: NOTHING,
      });
      assert.deepEqual(await store.budget("team-a"), { key: "team-a", spent: NOTHING });
      assert.deepEqual(await store.budget("team-b"), { key: "team-b", maxCost: 5, spent: NOTHING });
      assert.equal((await store.read("budget:team-a")).length, 2);
      assert.equal((await store.read("budget:team-b")).length, 1);
    }));

  test("raiseBudget on a key never set answers null and stores and records nothing", () =>
    withBudgets(async (store) => {
      assert.equal(await store.raiseBudget("nobody", "maxCost", 5, { by: "alice" }), null);
      assert.deepEqual(await store.budgets(), []);
      assert.deepEqual(await store.read(), []);
    }));

  test("raiseBudget refuses a bad key, limit, `to` or change options with invalid_option, and writes nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 1, maxTokens: 1, maxToolCalls: 1 });
      const before = await store.budget("team-a");
      const bad: [unknown, unknown, unknown, unknown][] = [
        ["", "maxCost", 5, undefined],
        ["a\nb", "maxCost", 5, undefined],
        ["team-a", "maxCalls", 5, undefined],
        ["team-a", "maxCost", 0, undefined],
        ["team-a", "maxCost", -1, undefined],
        ["team-a", "maxCost", Number.NaN, undefined],
        ["team-a", "maxCost", Number.POSITIVE_INFINITY, undefined],
        ["team-a", "maxCost", "5", undefined],
        ["team-a", "maxTokens", 1.5, undefined],
        ["team-a", "maxToolCalls", 2 ** 53, undefined],
        ["team-a", "maxToolCalls", 1e20, undefined],
        ["team-a", "maxCost", 5, { by: "" }],
        ["team-a", "maxCost", 5, { reason: "x" }],
      ];
      for (const [key, limit, to, options] of bad) {
        await assert.rejects(
          store.raiseBudget(key as string, limit as "maxCost", to as number, options as never),
          refused("invalid_option"),
          JSON.stringify([key, limit, to, options]),
        );
      }
      assert.deepEqual(await store.budget("team-a"), before);
      assert.deepEqual(
        (await store.read("budget:team-a")).map((record) => record.event),
        ["budget_set"],
      );
    }));

  test("two raises of one limit racing end at the larger, whichever lands last, with a record for each change only", () =>
    withBudgets(async (store) => {
      for (let round = 0; round < 5; round += 1) {
        const key = `team-${round}`;
        await store.setBudget(key, { maxToolCalls: 2, maxCost: 3 });
        const raises = [
          () => store.raiseBudget(key, "maxToolCalls", 10, { by: "alice" }),
          () => store.raiseBudget(key, "maxToolCalls", 5, { by: "bob" }),
        ];
        if (round % 2 === 1) raises.reverse();
        await Promise.all(raises.map((raise) => raise()));
        assert.deepEqual(await store.budget(key), { key, maxToolCalls: 10, maxCost: 3, spent: NOTHING });
        const records = await store.read(`budget:${key}`);
        assert.equal((records.at(-1)!.data as { maxToolCalls?: unknown }).maxToolCalls, 10);
        assert.ok(records.length === 2 || records.length === 3, String(records.length));
        assert.deepEqual(verifyAudit(records), []);
      }
    }));

  test("two stores on one database racing raises and a setBudget keep the larger raise and never drop the limit setBudget added", (context) =>
    withBudgets(async (store, child) => {
      if (child === undefined) {
        context.skip("a store no other object can open");
        return;
      }
      const other = await secondStore(child);
      try {
        await store.setBudget("team-a", { maxToolCalls: 2 });
        await Promise.all([
          store.raiseBudget("team-a", "maxToolCalls", 10, { by: "alice" }),
          other.raiseBudget("team-a", "maxToolCalls", 5, { by: "bob" }),
        ]);
        assert.equal((await other.budget("team-a"))?.maxToolCalls, 10);
        await store.setBudget("team-b", { maxToolCalls: 2 });
        await Promise.all([
          store.raiseBudget("team-b", "maxToolCalls", 10, { by: "alice" }),
          other.setBudget("team-b", { maxToolCalls: 2, maxCost: 3 }, { by: "cfo" }),
        ]);
        const budget = await other.budget("team-b");
        assert.equal(budget?.maxCost, 3);
        // Either the raise came first (and the setBudget set the count back to 2), or after it (10).
        assert.ok(budget?.maxToolCalls === 2 || budget?.maxToolCalls === 10, JSON.stringify(budget));
        assert.deepEqual(verifyAudit(await store.read()), []);
      } finally {
        await other.close();
      }
    }));

  test("a save whose tool charge fits is written with its records and its charge taken", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 5, maxToolCalls: 2 });
      const { first, next } = await startRun(store, "r1");
      await saveCharged(store, "r1", next, charge("team-a", { cost: 5, toolCalls: 1 }));
      assert.equal((await store.load("r1"))?.revision, 2);
      assert.deepEqual(await store.read("r1"), [...first, ...next]);
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 5, tokens: 0, toolCalls: 1 });
    }));

  test("a save whose tool charge would pass maxCost is refused with limit_reached (budget_cost) and writes nothing: no state, no records, no spend", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 1 });
      // Ten charges of 0.1 fill a budget of 1, beyond rounding.
      for (let index = 0; index < 10; index++) await store.chargeBudget(charge("team-a", { cost: 0.1, toolCalls: 1 }));
      const before = (await store.budget("team-a"))!.spent;
      assert.equal(before.toolCalls, 10);
      const { first, next } = await startRun(store, "r1");
      await assert.rejects(
        saveCharged(store, "r1", next, charge("team-a", { cost: 0.01, toolCalls: 1 })),
        (error: unknown) =>
          refused("limit_reached", { budget: "team-a", reason: "budget_cost", allowed: 1 })(error) &&
          isLeashError(error) &&
          error.details.used === before.cost,
      );
      assert.equal((await store.load("r1"))?.revision, 1);
      assert.deepEqual(await store.read("r1"), first);
      assert.deepEqual((await store.budget("team-a"))?.spent, before);
    }));

  test("a save whose tool charge would pass maxToolCalls is refused with limit_reached (budget_tool_calls) and writes nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxToolCalls: 1, maxCost: 100 });
      const one = await startRun(store, "r1");
      await saveCharged(store, "r1", one.next, charge("team-a", { cost: 1, toolCalls: 1 }));
      const two = await startRun(store, "r2");
      await assert.rejects(
        saveCharged(store, "r2", two.next, charge("team-a", { cost: 1, toolCalls: 1 })),
        refused("limit_reached", { budget: "team-a", reason: "budget_tool_calls", used: 1, allowed: 1 }),
      );
      assert.equal((await store.load("r2"))?.revision, 1);
      assert.deepEqual(await store.read("r2"), two.first);
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 1, tokens: 0, toolCalls: 1 });
      // A budget of no calls refuses the first.
      await store.setBudget("team-b", { maxToolCalls: 0 });
      const three = await startRun(store, "r3");
      await assert.rejects(
        saveCharged(store, "r3", three.next, charge("team-b", { toolCalls: 1 })),
        refused("limit_reached", { reason: "budget_tool_calls", used: 0, allowed: 0 }),
      );
    }));

  test("a stale save carrying a charge is refused as stale_state and takes nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxToolCalls: 5 });
      const { next } = await startRun(store, "r1");
      await assert.rejects(
        store.save(stateOf("r1", { revision: 3, head: headOf(next) }), {
          expectedRevision: 2,
          records: next,
          budgetCharge: charge("team-a", { toolCalls: 1 }),
        }),
        refused("stale_state"),
      );
      assert.deepEqual((await store.budget("team-a"))?.spent, NOTHING);
    }));

  test("a save carrying a charge whose records do not continue the run's chain is refused with audit_corrupt and takes nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxToolCalls: 5 });
      const { first } = await startRun(store, "r1");
      // A record two places past the head: a gap.
      const gap = chain("r1", 2, first[0]).slice(1);
      await assert.rejects(saveCharged(store, "r1", gap, charge("team-a", { toolCalls: 1 })), refused("audit_corrupt"));
      assert.equal((await store.load("r1"))?.revision, 1);
      assert.deepEqual(await store.read("r1"), first);
      assert.deepEqual((await store.budget("team-a"))?.spent, NOTHING);
    }));

  test("a save carrying a grant's use and a charge the budget refuses takes neither the use nor the charge", () =>
    withBudgets(async (store) => {
      const grant = await store.grant({ tool: "pay", maxUses: 1, by: "noor" });
      await store.setBudget("team-a", { maxToolCalls: 0 });
      const { next } = await startRun(store, "r1");
      const save = (budgetCharge: BudgetCharge) =>
        store.save(stateOf("r1", { revision: 2, head: headOf(next) }), {
          expectedRevision: 1,
          records: next,
          grantUses: [{ grant: grant.id, use: 1, toolDigest: "d" }],
          budgetCharge,
        });
      await assert.rejects(
        save(charge("team-a", { toolCalls: 1 })),
        refused("limit_reached", { reason: "budget_tool_calls" }),
      );
      assert.equal((await store.grants()).find((item) => item.id === grant.id)?.uses, 0);
      assert.equal((await store.load("r1"))?.revision, 1);
      await store.setBudget("team-a", { maxToolCalls: 1 });
      await save(charge("team-a", { toolCalls: 1 }));
      assert.equal((await store.grants()).find((item) => item.id === grant.id)?.uses, 1);
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 0, tokens: 0, toolCalls: 1 });
    }));

  test("a save with a tool charge of nothing is written on a budget already full, and changes no spend", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 1, maxToolCalls: 1 });
      await store.chargeBudget(charge("team-a", { cost: 1, toolCalls: 1 }));
      const { next } = await startRun(store, "r1");
      await saveCharged(store, "r1", next, charge("team-a", {}));
      assert.equal((await store.load("r1"))?.revision, 2);
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 1, tokens: 0, toolCalls: 1 });
    }));

  test("a charge with check none is always taken, even past every limit", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 1, maxTokens: 10, maxToolCalls: 0 });
      const { next } = await startRun(store, "r1");
      await saveCharged(store, "r1", next, charge("team-a", { cost: 3, tokens: 50, toolCalls: 2 }, "none"));
      assert.equal((await store.load("r1"))?.revision, 2);
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 3, tokens: 50, toolCalls: 2 });
    }));

  test("a charge on a key with no budget is ignored: the save is written, and no budget appears", () =>
    withBudgets(async (store) => {
      const { first, next } = await startRun(store, "r1");
      await saveCharged(store, "r1", next, charge("unset", { cost: 1_000, toolCalls: 9 }));
      await store.chargeBudget(charge("unset", { cost: 1_000, toolCalls: 9 }));
      assert.equal((await store.load("r1"))?.revision, 2);
      assert.deepEqual(await store.read("r1"), [...first, ...next]);
      assert.equal(await store.budget("unset"), null);
      assert.deepEqual(await store.budgets(), []);
    }));

  test("a negative charge gives spend back, never below zero, and is never refused", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 2, maxToolCalls: 1 });
      await store.chargeBudget(charge("team-a", { cost: 2, tokens: 10, toolCalls: 1 }));
      const { next } = await startRun(store, "r1");
      await saveCharged(store, "r1", next, charge("team-a", { cost: -0.5, tokens: -4, toolCalls: -1 }));
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 1.5, tokens: 6, toolCalls: 0 });
      await store.chargeBudget(charge("team-a", { cost: -10, tokens: -10, toolCalls: -10 }));
      assert.deepEqual((await store.budget("team-a"))?.spent, NOTHING);
      await store.resetBudget("team-a");
      await store.chargeBudget(charge("team-a", { cost: -1, toolCalls: -1 }, "none"));
      assert.deepEqual((await store.budget("team-a"))?.spent, NOTHING);
    }));

  test("chargeBudget alone takes a charge, and refuses a tool charge the budget has no room for, taking nothing", () =>
    withBudgets(async (store) => {
      await store.setBudget("team-a", { maxCost: 1.5, maxToolCalls: 3 });
      await store.chargeBudget(charge("team-a", { cost: 1, tokens: 20, toolCalls: 1 }));
      await assert.rejects(
        store.chargeBudget(charge("team-a", { cost: 1, toolCalls: 1 })),
        refused("limit_reached", { budget: "team-a", reason: "budget_cost", used: 1, allowed: 1.5 }),
      );
      await store.chargeBudget(charge("team-a", { cost: 0.5, toolCalls: 1 }));
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 1.5, tokens: 20, toolCalls: 2 });
      // Tokens are not a tool call's to refuse: they stop the next model call instead.
      await store.setBudget("team-a", { maxTokens: 1 });
      await store.chargeBudget(charge("team-a", { tokens: 5 }));
      assert.deepEqual((await store.budget("team-a"))?.spent, { cost: 1.5, tokens: 25, toolCalls: 2 });
    }));

  test("saves of many runs made at once, each charging one tool call, take exactly the budget's maxToolCalls", () =>
    withBudgets(async (store) => {
      const limit = 5;
      const runs = 12;
      await store.setBudget("team-a", { maxToolCalls: limit });
      const started = await Promise.all(Array.from({ length: runs }, (_, index) => startRun(store, `r${index}`)));
      const outcomes = await Promise.allSettled(
        started.map(({ next }, index) => saveCharged(store, `r${index}`, next, charge("team-a", { toolCalls: 1 }))),
      );
      const taken = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
      assert.equal(taken, limit);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") assert.ok(refused("limit_reached")(outcome.reason), String(outcome.reason));
      }
      assert.equal((await store.budget("team-a"))?.spent.toolCalls, limit);
      const saved = await Promise.all(started.map((_, index) => store.load(`r${index}`)));
      assert.equal(saved.filter((state) => state?.revision === 2).length, limit);
    }));

  test("two stores on one database racing saves that each charge one tool call take exactly the budget's maxToolCalls", (context) =>
    withBudgets(async (store, child) => {
      if (child === undefined) {
        context.skip("a store no other object can open");
        return;
      }
      const other = await secondStore(child);
      try {
        const limit = 7;
        const runs = 20;
        await store.setBudget("team-a", { maxToolCalls: limit });
        const started = await Promise.all(Array.from({ length: runs }, (_, index) => startRun(store, `r${index}`)));
        const outcomes = await Promise.allSettled(
          started.map(({ next }, index) =>
            saveCharged(index % 2 === 0 ? store : other, `r${index}`, next, charge("team-a", { toolCalls: 1 })),
          ),
        );
        for (const outcome of outcomes) {
          if (outcome.status === "rejected")
            assert.ok(refused("limit_reached")(outcome.reason), String(outcome.reason));
        }
        assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, limit);
        assert.equal((await other.budget("team-a"))?.spent.toolCalls, limit);
        assert.deepEqual(verifyAudit(await store.read()), []);
      } finally {
        await other.close();
      }
    }));
}
