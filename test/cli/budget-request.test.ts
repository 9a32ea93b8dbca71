// What `leash budget KEY` does to a store once its flags are checked, in this process on a
// MemoryStore (which keeps budgets whatever the SQLite store has landed): the limits given are
// merged with the others, a reset keeps the limits, an unknown key is budget_not_found, and a
// refused flag is refused before anything is read or written. budget-commands.test.ts runs the
// same through the real bin on SQLite.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore, isLeashError } from "../../src/index.js";
import { CliError } from "../../src/cli/cli-error.js";
import { applyBudgetRequest, budgetLines, budgetRequest, costOption } from "../../src/cli/commands/budgets.js";
import type { BudgetCommandOptions } from "../../src/cli/commands/budgets.js";

function apply(store: MemoryStore, key: string, options: BudgetCommandOptions) {
  return applyBudgetRequest(store, key, budgetRequest(key, options));
}

test("setting one limit keeps the others, clearing removes one, and the spend is kept", async () => {
  const store = new MemoryStore();
  await apply(store, "team-a", { maxCost: 100, maxToolCalls: 10, as: "noor" });
  await store.chargeBudget({ key: "team-a", cost: 12.5, tokens: 300, toolCalls: 4, check: "none" });
  const raised = await apply(store, "team-a", { maxCost: 200, as: "noor" });
  assert.deepEqual(raised, {
    key: "team-a",
    maxCost: 200,
    maxToolCalls: 10,
    spent: { cost: 12.5, tokens: 300, toolCalls: 4 },
  });
  const cleared = await apply(store, "team-a", { clearMaxToolCalls: true, maxTokens: 5000 });
  assert.deepEqual(cleared, {
    key: "team-a",
    maxCost: 200,
    maxTokens: 5000,
    spent: { cost: 12.5, tokens: 300, toolCalls: 4 },
  });
  assert.deepEqual(budgetLines(cleared), [
    "budget team-a",
    "  cost        12.5 of 200",
    "  tokens      300 of 5000",
    "  tool calls  4, no limit",
  ]);
});

test("a reset sets the spend back to zero and keeps the limits, recorded with who asked", async () => {
  const store = new MemoryStore();
  await apply(store, "team-a", { maxCost: 100 });
  await store.chargeBudget({ key: "team-a", cost: 0.1 + 0.2, tokens: 0, toolCalls: 1, check: "none" });
  assert.deepEqual(budgetLines((await store.budget("team-a"))!)[1], "  cost        0.3 of 100");
  const reset = await apply(store, "team-a", { reset: true, as: "noor", note: "a new month" });
  assert.deepEqual(reset, { key: "team-a", maxCost: 100, spent: { cost: 0, tokens: 0, toolCalls: 0 } });
  const records = await store.read("budget:team-a");
  assert.deepEqual(
    records.map((record) => record.event),
    ["budget_set", "budget_reset"],
  );
  const data = records[1]?.data as { by?: string; note?: string; origin?: { via?: string } };
  assert.equal(data.by, "noor");
  assert.equal(data.note, "a new month");
  assert.equal(data.origin?.via, "cli");
});

test("showing, resetting or clearing a key with no budget is budget_not_found and writes nothing", async () => {
  const store = new MemoryStore();
  for (const options of [{}, { reset: true }, { clearMaxCost: true }] as BudgetCommandOptions[]) {
    await assert.rejects(apply(store, "nope", options), (error) => isLeashError(error, "budget_not_found"));
  }
  assert.deepEqual(await store.budgets(), []);
  assert.deepEqual(await store.read("budget:nope"), []);
  // A limit given creates it, and a reset in the same command then finds it.
  assert.deepEqual(await apply(store, "new", { maxTokens: 10, reset: true }), {
    key: "new",
    maxTokens: 10,
    spent: { cost: 0, tokens: 0, toolCalls: 0 },
  });
});

test("a bad key, a limit both set and cleared, or --as with nothing to change is refused before the store is read", () => {
  const refusedAs = (code: string) => (error: unknown) =>
    (error instanceof CliError && error.code === code) || isLeashError(error, code as never);
  assert.throws(() => budgetRequest("", { maxCost: 1 }), refusedAs("invalid_option"));
  assert.throws(() => budgetRequest("a\nb", { maxCost: 1 }), refusedAs("invalid_option"));
  assert.throws(() => budgetRequest("a", { maxCost: 1, clearMaxCost: true }), refusedAs("invalid_option"));
  assert.throws(() => budgetRequest("a", { as: "noor" }), refusedAs("invalid_option"));
  assert.throws(() => budgetRequest("a", { note: "why" }), refusedAs("invalid_option"));
});

test("--max-cost takes a decimal number at least 0 and nothing else", () => {
  assert.equal(costOption("12.5"), 12.5);
  assert.equal(costOption("0"), 0);
  assert.equal(costOption(".5"), 0.5);
  for (const bad of ["", "abc", "-1", "1e3", "0x10", "Infinity", "NaN", "1,5", "12.5.1"])
    assert.throws(() => costOption(bad), /Expected a finite decimal number/, bad);
});
