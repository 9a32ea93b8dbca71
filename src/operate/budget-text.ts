import type { BudgetInfo } from "../stores/budget-info.js";
import { costText } from "./cost-text.js";

/** One measure of a shared budget as a person reads it: what it counts, the spend and its limit. */
export interface BudgetMeasure {
  /** What it counts, in words: `cost`, `tokens`, `tool calls`. */
  name: string;
  /** The spend so far, as text (a cost rounded as {@link costText} rounds it). */
  spent: string;
  /** The limit, as text; `undefined` when the budget sets none for this measure. */
  limit: string | undefined;
  /** The spend beside its limit: `12.5 of 100`, or `12.5, no limit`. */
  text: string;
}

function measure(name: string, spent: string, limit: string | undefined): BudgetMeasure {
  return { name, spent, limit, text: limit === undefined ? `${spent}, no limit` : `${spent} of ${limit}` };
}

/**
 * The three measures of a budget, each spend beside its limit, for the command line and the inbox
 * alike, so that both say the same thing of the same budget. Every measure is shown, limited or not:
 * a budget counts all three whatever limits it sets, and the spend of an unlimited measure is still
 * worth seeing before one sets a limit on it.
 */
export function budgetMeasures(budget: BudgetInfo): BudgetMeasure[] {
  return [
    measure("cost", costText(budget.spent.cost), budget.maxCost === undefined ? undefined : costText(budget.maxCost)),
    measure(
      "tokens",
      String(budget.spent.tokens),
      budget.maxTokens === undefined ? undefined : String(budget.maxTokens),
    ),
    measure(
      "tool calls",
      String(budget.spent.toolCalls),
      budget.maxToolCalls === undefined ? undefined : String(budget.maxToolCalls),
    ),
  ];
}
