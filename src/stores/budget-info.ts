import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { makeRecord } from "../audit/audit-record.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import { LeashError, checkOptionKeys, isLeashError } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { checkOrigin } from "./check-origin.js";

/** What a shared budget has been charged so far, over every run that spends from it. */
export interface BudgetSpent {
  cost: number;
  tokens: number;
  toolCalls: number;
}

/** The limits of a shared budget (API.md section 17); a limit left out limits nothing. */
export interface BudgetLimits {
  maxCost?: number;
  maxTokens?: number;
  maxToolCalls?: number;
}

/** A shared budget as `store.budget(key)` answers it. */
export interface BudgetInfo extends BudgetLimits {
  key: string;
  spent: BudgetSpent;
}

/** Why a budget stops a call: the stop reasons of section 17. */
export type BudgetStop = "budget_cost" | "budget_tokens" | "budget_tool_calls";

/**
 * A charge to take from a budget in the same transaction as a run's save (`SaveOptions.budgetCharge`),
 * or in one of its own (`RunStore.chargeBudget`, for a run whose trail is a separate sink). The
 * amounts are what the run spent since its last save (a withdrawn call's charge given back is
 * negative). With `check: "tool"` (the save of a tool call's intent) the store refuses the charge,
 * and then the whole save, writing nothing, when it would take the budget's calls past
 * `maxToolCalls` or its spend past `maxCost` (see {@link budgetStop}): it throws `limit_reached` with
 * `details.budget` (the key) and `details.reason` (the {@link BudgetStop}). With `check: "none"` it is
 * taken whatever it makes (a model call's usage, known only after the call). A key with no budget
 * set takes nothing and refuses nothing. @internal
 */
export interface BudgetCharge extends BudgetSpent {
  key: string;
  check: "tool" | "none";
}

/** Who changes a budget, for its record: the last argument of `setBudget` and `resetBudget`. */
export interface BudgetChangeOptions {
  /** Who made the change (a person's name); recorded. */
  by?: string;
  /** Why; recorded. */
  note?: string;
  /** Where the change came from (the CLI's `{ via: "cli", user, host }`, a raise's answer); recorded. */
  origin?: AnswerOrigin;
}

/**
 * The largest limit or spend a budget keeps: the cap of a run's own usage (`MAX_USAGE`), so that
 * every amount is exact in JSON and in every store's arithmetic.
 */
export const MAX_BUDGET_AMOUNT = Number.MAX_SAFE_INTEGER;

const LIMIT_KEYS = ["maxCost", "maxTokens", "maxToolCalls"] as const;

// The tolerance the run's own money limits use: ten charges of 0.1 fill a budget of 1.
const MONEY_TOLERANCE = 1e-9;

// Half of a surrogate pair with no other half: not text, and a store writing UTF-8 would change it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a budget's key: a non-empty string of at most 200 characters, well-formed text without
 * control characters, so that every store keeps it exactly as given.
 */
export function checkBudgetKey(key: unknown): string {
  if (
    typeof key !== "string" ||
    key.trim() === "" ||
    key.length > 200 ||
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f]/.test(key) ||
    LONE_SURROGATE.test(key)
  ) {
    throw new LeashError(
      "invalid_option",
      "Expected a budget's key to be a non-empty string of at most 200 characters of well-formed text without control characters.",
    );
  }
  return key;
}

/** Checks the limits `setBudget` takes: each one given a finite number at least 0 (whole for counts). */
export function checkBudgetLimits(limits: unknown): BudgetLimits {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new LeashError("invalid_option", "Expected the budget's limits to be an object.");
  }
  checkOptionKeys(limits, LIMIT_KEYS, "setBudget");
  const checked: BudgetLimits = {};
  for (const name of LIMIT_KEYS) {
    const value = (limits as Record<string, unknown>)[name];
    if (value === undefined) continue;
    const whole = name !== "maxCost";
    if (
      typeof value !== "number" ||
      !Number.isFinite(value) ||
      value < 0 ||
      value > MAX_BUDGET_AMOUNT ||
      (whole && !Number.isSafeInteger(value))
    ) {
      throw new LeashError(
        "invalid_option",
        `Expected \`${name}\` to be ${whole ? "a whole number" : "a finite number"} from 0 to ${MAX_BUDGET_AMOUNT}.`,
      );
    }
    checked[name] = value;
  }
  return checked;
}

/** The run id of a budget's chain in the store's trail. */
export function budgetRunId(key: string): string {
  return `budget:${key}`;
}

/**
 * Why a tool call's charge would stop at `budget`, or `undefined` when the budget has room for it:
 * its calls past `maxToolCalls`, or its spend past `maxCost` (beyond rounding). Tokens are not a
 * tool's to pass: they stop the next model call instead ({@link budgetModelStop}).
 */
export function budgetStop(budget: BudgetInfo, charge: BudgetSpent): BudgetStop | undefined {
  const { maxCost, maxToolCalls } = budget;
  if (maxToolCalls !== undefined && charge.toolCalls > 0 && budget.spent.toolCalls + charge.toolCalls > maxToolCalls) {
    return "budget_tool_calls";
  }
  if (
    maxCost !== undefined &&
    charge.cost > 0 &&
    budget.spent.cost + charge.cost > maxCost + maxCost * MONEY_TOLERANCE
  ) {
    return "budget_cost";
  }
  return undefined;
}

/** Why a model call may not start: the spend has reached `maxCost` or `maxTokens`. */
export function budgetModelStop(budget: BudgetInfo): BudgetStop | undefined {
  const { maxCost, maxTokens, spent } = budget;
  if (maxTokens !== undefined && spent.tokens >= maxTokens) return "budget_tokens";
  if (maxCost !== undefined && spent.cost >= maxCost - maxCost * MONEY_TOLERANCE) return "budget_cost";
  return undefined;
}

/** The checked options of a change: `by` and `note` non-empty strings, `origin` an AnswerOrigin. */
export function checkChangeOptions(options: unknown, method: string): BudgetChangeOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new LeashError("invalid_option", `Expected the options of \`${method}\` to be an object.`);
  }
  checkOptionKeys(options, ["by", "note", "origin"], method);
  const { by, note, origin } = options as Record<string, unknown>;
  const checked: BudgetChangeOptions = {};
  for (const [name, value] of [
    ["by", by],
    ["note", note],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "" || value.length > 1000) {
      throw new LeashError(
        "invalid_option",
        `Expected \`${name}\` to be a non-empty string of at most 1000 characters.`,
      );
    }
    checked[name] = value;
  }
  const checkedOrigin = checkOrigin(origin);
  if (checkedOrigin !== undefined) checked.origin = checkedOrigin;
  return checked;
}

/** Checks a charge a store is asked to take: a budget key, finite amounts, a known check. @internal */
export function checkBudgetCharge(charge: BudgetCharge): BudgetCharge {
  const finite = [charge.cost, charge.tokens, charge.toolCalls].every((value) => Number.isFinite(value));
  if (!finite || (charge.check !== "tool" && charge.check !== "none")) {
    throw new LeashError("internal_error", "A budget charge must carry finite amounts and a check of tool or none.");
  }
  checkBudgetKey(charge.key);
  return charge;
}

/** Whether a charge changes nothing (every amount zero). */
export function isEmptyCharge(charge: BudgetSpent): boolean {
  return charge.cost === 0 && charge.tokens === 0 && charge.toolCalls === 0;
}

/**
 * The spend after a charge: never below zero (a charge given back after a reset takes nothing off)
 * and never above {@link MAX_BUDGET_AMOUNT}, as a run's own usage is capped (a spend so far past any
 * limit stops every call, and stays a number JSON carries exactly).
 */
export function chargedSpent(spent: BudgetSpent, charge: BudgetSpent): BudgetSpent {
  const bounded = (value: number): number => Math.min(MAX_BUDGET_AMOUNT, Math.max(0, value));
  return {
    cost: bounded(spent.cost + charge.cost),
    tokens: bounded(spent.tokens + charge.tokens),
    toolCalls: bounded(spent.toolCalls + charge.toolCalls),
  };
}

/** What a budget stop is measured against: the spend and the limit it names. */
export function budgetUsed(budget: BudgetInfo, reason: BudgetStop): { used: number; allowed: number | undefined } {
  if (reason === "budget_cost") return { used: budget.spent.cost, allowed: budget.maxCost };
  if (reason === "budget_tool_calls") return { used: budget.spent.toolCalls, allowed: budget.maxToolCalls };
  return { used: budget.spent.tokens, allowed: budget.maxTokens };
}

/**
 * The refusal of a charge that would pass the budget (`limit_reached`, with `details.budget`,
 * `details.reason`, `details.used` and `details.allowed`): nothing of the save that carried it is
 * written.
 */
export function budgetRefused(budget: BudgetInfo, reason: BudgetStop): LeashError {
  const { used, allowed } = budgetUsed(budget, reason);
  return new LeashError(
    "limit_reached",
    `The shared budget \`${budget.key}\` has no room for the call (${reason}: ${used} used of ${allowed ?? "no limit"}).`,
    { details: { budget: budget.key, reason, used, allowed: allowed ?? null } },
  );
}

/** A store's refusal of a budget charge, read back from the error it threw; `undefined` for any other error. */
export interface BudgetRefusal {
  key: string;
  reason: BudgetStop;
  used: number;
  allowed: number;
}

/** The budget refusal `error` is, when it is one (see {@link budgetRefused}). */
export function budgetRefusalOf(error: unknown): BudgetRefusal | undefined {
  if (!isLeashError(error, "limit_reached")) return undefined;
  const { budget, reason, used, allowed } = error.details;
  if (typeof budget !== "string") return undefined;
  if (reason !== "budget_cost" && reason !== "budget_tool_calls" && reason !== "budget_tokens") return undefined;
  return { key: budget, reason, used: Number(used), allowed: Number(allowed) };
}

function changeData(change: BudgetChangeOptions): Record<string, Json> {
  const data: Record<string, Json> = {};
  if (change.by !== undefined) data.by = change.by;
  if (change.note !== undefined) data.note = change.note;
  if (change.origin !== undefined) data.origin = { ...change.origin };
  return data;
}

/** The `budget_set` record of a change (the limits as set), continuing the budget's chain at `head` (null: its first). */
export function budgetSetRecord(
  budget: BudgetInfo,
  change: BudgetChangeOptions,
  head: AuditHead | null,
  at: string,
): AuditRecord {
  const { spent: _spent, ...limits } = budget;
  return makeRecord(budgetRunId(budget.key), head, "budget_set", { ...limits, ...changeData(change) }, at);
}

/** The `budget_reset` record: the spend that was cleared. */
export function budgetResetRecord(
  budget: BudgetInfo,
  change: BudgetChangeOptions,
  head: AuditHead,
  at: string,
): AuditRecord {
  const data = { key: budget.key, cleared: { ...budget.spent }, ...changeData(change) };
  return makeRecord(budgetRunId(budget.key), head, "budget_reset", data, at);
}

/** The refusal of a key with no budget set. */
export function budgetNotFound(key: string): LeashError {
  return new LeashError("budget_not_found", `No shared budget \`${key}\` in the store.`, { details: { budget: key } });
}
