import type { LeashError } from "../../errors/index.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits, BudgetStop } from "../budget-info.js";
import type { BudgetRaise } from "../budget-raise.js";
import { raisedBudget } from "../budget-raise.js";
import {
  budgetNotFound,
  budgetRefused,
  budgetResetRecord,
  budgetRunId,
  budgetSetRecord,
  checkBudgetCharge,
  checkBudgetKey,
  checkBudgetLimits,
  checkChangeOptions,
} from "../budget-info.js";
import { StateError } from "../../errors/index.js";
import { insertRecords } from "./postgres-audit-rows.js";
import { sqlState, storeFailed } from "./postgres-errors.js";
import { FUNCTION_STATES } from "./postgres-functions.js";
import type { PostgresClient, PostgresPool } from "./postgres-pool.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** A nullable column read back as a number, or `undefined` for NULL (pg gives bigint as text). */
function numberOrNone(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

/** A budget from its limits and spend, a limit that is `undefined` left out. */
function budgetFrom(key: string, limits: Record<string, unknown>, spent: BudgetInfo["spent"]): BudgetInfo {
  const info: BudgetInfo = { key, spent };
  const maxCost = numberOrNone(limits.maxCost);
  const maxTokens = numberOrNone(limits.maxTokens);
  const maxToolCalls = numberOrNone(limits.maxToolCalls);
  if (maxCost !== undefined) info.maxCost = maxCost;
  if (maxTokens !== undefined) info.maxTokens = maxTokens;
  if (maxToolCalls !== undefined) info.maxToolCalls = maxToolCalls;
  return info;
}

/** A stored budget's row read back. */
function budgetOf(row: Record<string, unknown>): BudgetInfo {
  return budgetFrom(
    String(row.key),
    { maxCost: row.max_cost, maxTokens: row.max_tokens, maxToolCalls: row.max_tool_calls },
    { cost: Number(row.spent_cost), tokens: Number(row.spent_tokens), toolCalls: Number(row.spent_tool_calls) },
  );
}

/** The order of `budgets()`: by key, as JavaScript compares strings (the memory store's order). */
function byKey(first: BudgetInfo, second: BudgetInfo): number {
  return first.key < second.key ? -1 : first.key > second.key ? 1 : 0;
}

/**
 * The refusal a `leash_charge_budget` raise stands for (`limit_reached` with the budget's values as
 * they were under its lock), or `undefined` for any other error.
 */
export function budgetRefusalOfRaise(error: unknown): LeashError | undefined {
  if (sqlState(error) !== FUNCTION_STATES.budget) return undefined;
  let detail: Record<string, unknown>;
  try {
    detail = JSON.parse(String((error as { detail?: unknown }).detail)) as Record<string, unknown>;
  } catch (cause) {
    return storeFailed(cause, "reading a shared budget's refusal");
  }
  const budget = budgetFrom(String(detail.key), detail, {
    cost: Number(detail.cost),
    tokens: Number(detail.tokens),
    toolCalls: Number(detail.toolCalls),
  });
  return budgetRefused(budget, detail.reason as BudgetStop);
}

/** The charge as the parameters `leash_charge_budget` (and `leash_save_run_charged`, last) take. */
export function chargeValues(charge: BudgetCharge): unknown[] {
  return [charge.key, charge.cost, charge.tokens, charge.toolCalls, charge.check];
}

function trailTaken(runId: string, error: unknown): StateError {
  return new StateError("stale_state", `Another writer extended the chain \`${runId}\` at the same place.`, {
    cause: error,
    details: { runId },
  });
}

/** The head of a budget's chain in the caller's transaction (null before its first record). */
async function chainHead(client: PostgresClient, tables: PostgresTables, key: string) {
  const head = await client.query(
    `SELECT seq, digest FROM ${tables.audit} WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`,
    [budgetRunId(key)],
  );
  const last = head.rows[0];
  return last === undefined ? null : { seq: Number(last.seq), digest: String(last.digest) };
}

/**
 * `store.setBudget` on PostgreSQL: the row written (its spend kept) and its `budget_set` record, in
 * one transaction. The upsert locks the row first (a new key's insert waits for another's), so two
 * changes of one budget take turns and each record continues the chain the other left.
 */
export async function setBudget(
  pool: PostgresPool,
  tables: PostgresTables,
  key: string,
  limits: BudgetLimits,
  options: BudgetChangeOptions | undefined,
): Promise<BudgetInfo> {
  checkBudgetKey(key);
  const checked = checkBudgetLimits(limits);
  const change = checkChangeOptions(options, "setBudget");
  return inTransaction(pool, `setting shared budget \`${key}\``, async (client) => {
    const written = await client.query(
      `INSERT INTO ${tables.budgets} AS budget (key, max_cost, max_tokens, max_tool_calls, spent_cost, spent_tokens, spent_tool_calls)
       VALUES ($1, $2, $3, $4, 0, 0, 0)
       ON CONFLICT (key) DO UPDATE SET max_cost = excluded.max_cost, max_tokens = excluded.max_tokens,
         max_tool_calls = excluded.max_tool_calls
       RETURNING budget.*`,
      [key, checked.maxCost ?? null, checked.maxTokens ?? null, checked.maxToolCalls ?? null],
    );
    // The limits as given (the row holds the same numbers), the spend as stored under the lock.
    const info: BudgetInfo = { key, ...checked, spent: budgetOf(written.rows[0]!).spent };
    const record = budgetSetRecord(info, change, await chainHead(client, tables, key), new Date().toISOString());
    await insertRecords(client, tables, [record], (error) => trailTaken(record.run, error));
    return info;
  });
}

/**
 * `store.raiseBudget` on PostgreSQL: in one transaction, the row locked (`FOR UPDATE`) and, when the
 * limit is set and below `to`, that limit alone updated and `budget_set` recorded; a limit not set,
 * or at least `to` already, is left as it is, with no record. Another change of the budget waits for
 * the lock, or this one for it, so neither is lost.
 */
export async function raiseBudget(
  pool: PostgresPool,
  tables: PostgresTables,
  raise: BudgetRaise,
): Promise<BudgetInfo | null> {
  const { key } = raise;
  return inTransaction(pool, `raising shared budget \`${key}\``, async (client) => {
    const found = await client.query(`SELECT * FROM ${tables.budgets} WHERE key = $1 FOR UPDATE`, [key]);
    const row = found.rows[0];
    if (row === undefined) return null;
    const stored = budgetOf(row);
    const info = raisedBudget(stored, raise);
    if (info === undefined) return stored;
    const column = RAISE_COLUMNS[raise.limit];
    await client.query(`UPDATE ${tables.budgets} SET ${column} = $2 WHERE key = $1`, [key, raise.to]);
    const record = budgetSetRecord(info, raise.change, await chainHead(client, tables, key), new Date().toISOString());
    await insertRecords(client, tables, [record], (error) => trailTaken(record.run, error));
    return info;
  });
}

/** The column of each limit a raise sets. */
const RAISE_COLUMNS = { maxCost: "max_cost", maxTokens: "max_tokens", maxToolCalls: "max_tool_calls" } as const;

/** `store.resetBudget` on PostgreSQL: the row locked, its spend cleared, and `budget_reset` recorded, in one transaction. */
export async function resetBudget(
  pool: PostgresPool,
  tables: PostgresTables,
  key: string,
  options: BudgetChangeOptions | undefined,
): Promise<BudgetInfo> {
  checkBudgetKey(key);
  const change = checkChangeOptions(options, "resetBudget");
  return inTransaction(pool, `resetting shared budget \`${key}\``, async (client) => {
    const found = await client.query(`SELECT * FROM ${tables.budgets} WHERE key = $1 FOR UPDATE`, [key]);
    const row = found.rows[0];
    if (row === undefined) throw budgetNotFound(key);
    const stored = budgetOf(row);
    const record = budgetResetRecord(stored, change, (await chainHead(client, tables, key))!, new Date().toISOString());
    await client.query(
      `UPDATE ${tables.budgets} SET spent_cost = 0, spent_tokens = 0, spent_tool_calls = 0 WHERE key = $1`,
      [key],
    );
    await insertRecords(client, tables, [record], (error) => trailTaken(record.run, error));
    return { ...stored, spent: { cost: 0, tokens: 0, toolCalls: 0 } };
  });
}

/** `store.budget` on PostgreSQL: the committed row, or `null`. */
export async function selectBudget(
  pool: PostgresPool,
  tables: PostgresTables,
  key: string,
): Promise<BudgetInfo | null> {
  checkBudgetKey(key);
  const result = await queryOnce(
    pool,
    `reading shared budget \`${key}\``,
    `SELECT * FROM ${tables.budgets} WHERE key = $1`,
    [key],
  );
  const row = result.rows[0];
  return row === undefined ? null : budgetOf(row);
}

/** `store.budgets` on PostgreSQL: every budget, by key. */
export async function selectBudgets(pool: PostgresPool, tables: PostgresTables): Promise<BudgetInfo[]> {
  const result = await queryOnce(pool, "listing the shared budgets", `SELECT * FROM ${tables.budgets}`);
  return result.rows.map(budgetOf).sort(byKey);
}

/** `store.chargeBudget` on PostgreSQL: one call of `leash_charge_budget`, a transaction of its own. */
export async function chargeBudget(pool: PostgresPool, tables: PostgresTables, charge: BudgetCharge): Promise<void> {
  checkBudgetCharge(charge);
  try {
    await pool.query(
      `SELECT ${tables.chargeBudget}($1::text, $2::double precision, $3::double precision, $4::double precision, $5::text)`,
      chargeValues(charge),
    );
  } catch (error) {
    throw budgetRefusalOfRaise(error) ?? storeFailed(error, `charging shared budget \`${charge.key}\``);
  }
}
