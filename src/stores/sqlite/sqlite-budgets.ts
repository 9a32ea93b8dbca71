import type { Database, Statement } from "better-sqlite3";
import type { BudgetCharge, BudgetInfo, BudgetSpent } from "../budget-info.js";
import { budgetRefused, budgetStop, chargedSpent, isEmptyCharge } from "../budget-info.js";

interface BudgetRow {
  key: string;
  max_cost: number | null;
  max_tokens: number | null;
  max_tool_calls: number | null;
  spent_cost: number;
  spent_tokens: number;
  spent_tool_calls: number;
}

type BudgetValues = [string, number | null, number | null, number | null, number, number, number];

/** A stored budget's row read back: a limit whose column is NULL is left out. */
function budgetOf(row: BudgetRow): BudgetInfo {
  const info: BudgetInfo = {
    key: row.key,
    spent: { cost: row.spent_cost, tokens: row.spent_tokens, toolCalls: row.spent_tool_calls },
  };
  if (row.max_cost !== null) info.maxCost = row.max_cost;
  if (row.max_tokens !== null) info.maxTokens = row.max_tokens;
  if (row.max_tool_calls !== null) info.maxToolCalls = row.max_tool_calls;
  return info;
}

/** The order of `budgets()`: by key, as JavaScript compares strings (the memory store's order). */
function byKey(first: BudgetInfo, second: BudgetInfo): number {
  return first.key < second.key ? -1 : first.key > second.key ? 1 : 0;
}

/**
 * The budgets table of a {@link SqliteStore}: statements that run inside the caller's (immediate)
 * transaction, so that a change and its record, or a charge and the run's save, commit together.
 */
export class SqliteBudgets {
  readonly #write: Statement<BudgetValues>;
  readonly #spend: Statement<[number, number, number, string]>;
  readonly #one: Statement<[string], BudgetRow>;
  readonly #all: Statement<[], BudgetRow>;

  constructor(database: Database) {
    this.#write = database.prepare(
      `INSERT INTO leash_budgets (key, max_cost, max_tokens, max_tool_calls, spent_cost, spent_tokens, spent_tool_calls)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET max_cost = excluded.max_cost, max_tokens = excluded.max_tokens,
         max_tool_calls = excluded.max_tool_calls, spent_cost = excluded.spent_cost,
         spent_tokens = excluded.spent_tokens, spent_tool_calls = excluded.spent_tool_calls`,
    );
    this.#spend = database.prepare(
      "UPDATE leash_budgets SET spent_cost = ?, spent_tokens = ?, spent_tool_calls = ? WHERE key = ?",
    );
    this.#one = database.prepare("SELECT * FROM leash_budgets WHERE key = ?");
    this.#all = database.prepare("SELECT * FROM leash_budgets");
  }

  /** The stored budget of a key, or `undefined`. */
  get(key: string): BudgetInfo | undefined {
    const row = this.#one.get(key);
    return row === undefined ? undefined : budgetOf(row);
  }

  /** Every stored budget, by key. */
  list(): BudgetInfo[] {
    return this.#all.all().map(budgetOf).sort(byKey);
  }

  /** Writes a budget whole: its limits (one left out is NULL) and its spend. */
  put(budget: BudgetInfo): void {
    const { key, maxCost, maxTokens, maxToolCalls, spent } = budget;
    this.#write.run(
      key,
      maxCost ?? null,
      maxTokens ?? null,
      maxToolCalls ?? null,
      spent.cost,
      spent.tokens,
      spent.toolCalls,
    );
  }

  /**
   * Takes a charge inside the caller's savepoint: nothing for a key with no budget; with `check:
   * "tool"`, throws the refusal (`limit_reached`) of a charge the budget has no room for, and then
   * the caller's savepoint rolls back. The spend never goes below zero.
   */
  charge(charge: BudgetCharge): void {
    if (isEmptyCharge(charge)) return;
    const budget = this.get(charge.key);
    if (budget === undefined) return;
    if (charge.check === "tool") {
      const reason = budgetStop(budget, charge);
      if (reason !== undefined) throw budgetRefused(budget, reason);
    }
    const spent: BudgetSpent = chargedSpent(budget.spent, charge);
    this.#spend.run(spent.cost, spent.tokens, spent.toolCalls, charge.key);
  }
}
