import { Command, InvalidArgumentError } from "commander";
import { LeashError } from "../../errors/leash-error.js";
import type { BudgetChangeOptions, BudgetInfo, BudgetLimits } from "../../stores/budget-info.js";
import type { RunStore } from "../../stores/run-store.js";
import { cliOrigin } from "../../operate/answer-origin.js";
import { budgetMeasures } from "../../operate/budget-text.js";
import { withExistingStore } from "../../operate/open-store.js";
import { checkBudgetKey } from "../../stores/budget-info.js";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { formatTable, printJson, printLines } from "../print.js";
import { integerOption } from "./bench-corpus.js";

type BudgetStore = RunStore & Required<Pick<RunStore, "setBudget" | "budget" | "resetBudget" | "budgets">>;

/** The store's budget methods, or a refusal for a store that keeps no shared budgets. */
function budgetStore(store: RunStore): BudgetStore {
  if (
    store.setBudget === undefined ||
    store.budget === undefined ||
    store.resetBudget === undefined ||
    store.budgets === undefined
  )
    throw new CliError("invalid_option", "This store keeps no shared budgets.");
  return store as BudgetStore;
}

/** The refusal of a key with no budget, with what to type instead. */
function notFound(key: string): LeashError {
  return new LeashError(
    "budget_not_found",
    `No shared budget \`${key}\` in the store: leash budgets lists them; leash budget ${key} --max-cost N sets one.`,
    { details: { budget: key } },
  );
}

/**
 * Parses `--max-cost`: a finite decimal number at least 0, written out (`12.5`, not `1e3` or `0x10`),
 * refused with a usage error before the store is opened, so a typo changes nothing.
 */
export function costOption(value: string): number {
  const text = value.trim();
  const parsed = Number(text);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text) || !Number.isFinite(parsed))
    throw new InvalidArgumentError("Expected a finite decimal number at least 0, such as 100 or 12.5.");
  return parsed;
}

/** A budget as lines of text: its key, then each measure's spend beside its limit. */
export function budgetLines(budget: BudgetInfo): string[] {
  const measures = budgetMeasures(budget);
  const width = Math.max(...measures.map((item) => item.name.length));
  return [`budget ${budget.key}`, ...measures.map((item) => `  ${item.name.padEnd(width)}  ${item.text}`)];
}

const LIMITS = [
  { name: "maxCost", flag: "--max-cost", clear: "clearMaxCost", clearFlag: "--clear-max-cost" },
  { name: "maxTokens", flag: "--max-tokens", clear: "clearMaxTokens", clearFlag: "--clear-max-tokens" },
  { name: "maxToolCalls", flag: "--max-tool-calls", clear: "clearMaxToolCalls", clearFlag: "--clear-max-tool-calls" },
] as const;

/** The flags of `leash budget`, as commander parses them. */
export interface BudgetCommandOptions extends CommonOptions {
  maxCost?: number;
  maxTokens?: number;
  maxToolCalls?: number;
  clearMaxCost?: boolean;
  clearMaxTokens?: boolean;
  clearMaxToolCalls?: boolean;
  reset?: boolean;
  as?: string;
  note?: string;
}

/** What the flags change of a budget's limits: the limits given, and the limits to remove. */
export interface LimitChanges {
  set: BudgetLimits;
  clear: (keyof BudgetLimits)[];
}

/** The limits the flags set and clear; a limit both set and cleared is refused. */
function limitChanges(options: BudgetCommandOptions): LimitChanges {
  const changes: LimitChanges = { set: {}, clear: [] };
  for (const limit of LIMITS) {
    const value = options[limit.name];
    const clear = options[limit.clear] === true;
    if (value !== undefined && clear)
      throw new CliError("invalid_option", `Give ${limit.flag} or ${limit.clearFlag}, not both.`);
    if (value !== undefined) changes.set[limit.name] = value;
    if (clear) changes.clear.push(limit.name);
  }
  return changes;
}

/**
 * The limits to set: the budget's current ones, then those the flags give, less those the flags
 * clear. `setBudget` replaces every limit (one left out is removed), so the command reads the budget
 * first: `--max-cost 200` on a budget that also caps tokens keeps its token cap. Two people changing
 * different limits of one budget at the same instant may lose one change (the read and the set are
 * two steps); each change is recorded, so the trail shows which.
 */
function mergedLimits(current: BudgetInfo | null, changes: LimitChanges): BudgetLimits {
  const merged: BudgetLimits = {};
  for (const limit of LIMITS) {
    const value = changes.set[limit.name] ?? current?.[limit.name];
    if (value !== undefined && !changes.clear.includes(limit.name)) merged[limit.name] = value;
  }
  return merged;
}

/** What `leash budget KEY` was asked to do, its flags checked: show the budget, or change it. */
export interface BudgetRequest {
  /** The limits to set and to remove; both empty to leave the limits as they are. */
  changes: LimitChanges;
  /** Whether to set the spend back to zero (after any limits are set). */
  reset: boolean;
  /** Who makes the change, why and from where, for its records. */
  change: BudgetChangeOptions;
}

/** The request of the command's flags, checked before the store is opened: a bad flag changes nothing. */
export function budgetRequest(key: string, options: BudgetCommandOptions): BudgetRequest {
  checkBudgetKey(key);
  const changes = limitChanges(options);
  const reset = options.reset === true;
  if (!isChange({ changes, reset }) && (options.as !== undefined || options.note !== undefined))
    throw new CliError(
      "invalid_option",
      "--as and --note say who changes a budget and why: give them with --max-*, --clear-max-* or --reset.",
    );
  const change: BudgetChangeOptions = {
    origin: cliOrigin(),
    ...(options.as === undefined ? {} : { by: options.as }),
    ...(options.note === undefined ? {} : { note: options.note }),
  };
  return { changes, reset, change };
}

/** Whether the request changes the budget, rather than only showing it. */
function isChange(request: Pick<BudgetRequest, "changes" | "reset">): boolean {
  return request.reset || Object.keys(request.changes.set).length > 0 || request.changes.clear.length > 0;
}

/**
 * Shows, sets or resets one budget in the store, and answers the budget as it is after. Nothing is
 * written when the budget is not there to show, reset or clear a limit of (`budget_not_found`);
 * setting a limit of a key with no budget creates it.
 */
export async function applyBudgetRequest(opened: RunStore, key: string, request: BudgetRequest): Promise<BudgetInfo> {
  const store = budgetStore(opened);
  const current = await store.budget(key);
  const { changes, reset, change } = request;
  // Only a limit given creates a budget: showing, clearing or resetting what is not there is a
  // mistake worth saying, not an empty budget to make.
  if (current === null && Object.keys(changes.set).length === 0) throw notFound(key);
  let result = current as BudgetInfo;
  if (Object.keys(changes.set).length > 0 || changes.clear.length > 0)
    result = await store.setBudget(key, mergedLimits(current, changes), change);
  if (reset) result = await store.resetBudget(key, change);
  return result;
}

/** `leash budget KEY`: shows a shared budget, or changes its limits (merged with the others) or resets its spend. */
export function budgetCommand(): Command {
  const command = new Command("budget")
    .description("show a shared budget (each limit with the spend beside it), or set its limits, or reset its spend")
    .argument("<key>", "the budget's key, as an agent's budget option names it")
    .option("--max-cost <n>", "set its cost limit (a decimal number at least 0)", costOption)
    .option("--max-tokens <n>", "set its token limit (a whole number at least 0)", integerOption(0))
    .option("--max-tool-calls <n>", "set its tool call limit (a whole number at least 0)", integerOption(0))
    .option("--clear-max-cost", "remove its cost limit")
    .option("--clear-max-tokens", "remove its token limit")
    .option("--clear-max-tool-calls", "remove its tool call limit")
    .option("--reset", "set its spend back to zero (after setting any limits given)")
    .option("--as <name>", "who makes the change, for its record")
    .option("--note <text>", "why, for its record")
    .addHelpText(
      "after",
      [
        "",
        "With no --max-*, --clear-max-* or --reset, the budget is shown. The limits given change those",
        "limits only: the others stay as they are (remove one with its --clear-max-* flag). A limit given",
        "for a key with no budget creates it. The spend is kept when limits change; --reset clears it.",
        "Every change is recorded (budget_set, budget_reset) under the run id budget:KEY, with --as,",
        "--note and the operating-system user and host.",
      ].join("\n"),
    );
  return withCommonOptions(command).action(async (key: string, options: BudgetCommandOptions) => {
    // Checked before the store is opened: a bad key or flag is a usage error wherever the store is.
    const request = budgetRequest(key, options);
    const budget = await withExistingStore(storeLocation(options), (store) => applyBudgetRequest(store, key, request));
    if (options.json) printJson(budget);
    else printLines(budgetLines(budget));
  });
}

/** `leash budgets`: every shared budget of the store, one line each, each spend beside its limit. */
export function budgetsCommand(): Command {
  const command = new Command("budgets").description(
    "list the shared budgets, one line each: each limit with the spend beside it",
  );
  return withCommonOptions(command).action(async (options: CommonOptions) => {
    const budgets = await withExistingStore(storeLocation(options), (store) => budgetStore(store).budgets());
    if (options.json) {
      printJson(budgets);
      return;
    }
    if (budgets.length === 0) {
      printLines(["No shared budgets."]);
      return;
    }
    const rows = budgets.map((budget) => [budget.key, ...budgetMeasures(budget).map((item) => item.text)]);
    printLines(formatTable([["KEY", "COST", "TOKENS", "TOOL CALLS"], ...rows]));
  });
}
