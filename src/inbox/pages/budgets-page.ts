import type { BudgetInfo } from "../../stores/budget-info.js";
import { budgetMeasures } from "../../operate/budget-text.js";
import { html } from "../html.js";
import type { Html } from "../html.js";
import { listTable, page } from "./layout.js";
import type { Viewer } from "./layout.js";

/** The `data-field` of each measure's cell, for scripts and tests that read the page. */
const FIELDS: Readonly<Record<string, string>> = { cost: "cost", tokens: "tokens", "tool calls": "tool-calls" };

function budgetRow(budget: BudgetInfo): Html {
  const cells = budgetMeasures(budget).map(
    (item) =>
      html`<td class="num" data-field="${FIELDS[item.name] ?? item.name}" data-label="${item.name}">
        ${item.spent} ${item.limit === undefined ? html`<small>(no limit)</small>` : html`of ${item.limit}`}
      </td>`,
  );
  return html`<tr data-budget-key="${budget.key}">
    <td class="run-id" data-field="key"><code>${budget.key}</code></td>
    ${cells}
  </tr>`;
}

/**
 * The store's shared budgets, by key, each measure's spend beside its limit; `null` for a store that
 * keeps no budgets (one without the budget methods), which the page says rather than showing an
 * empty list that would suggest budgets could be set there.
 */
export function budgetsPage(budgets: readonly BudgetInfo[] | null, viewer: Viewer): Html {
  let body: Html;
  if (budgets === null) body = html`<p class="empty">This store keeps no shared budgets.</p>`;
  else if (budgets.length === 0)
    body = html`<p class="empty">No shared budgets. Set one with <code>leash budget KEY --max-cost N</code>.</p>`;
  else
    body = listTable(
      html`<th scope="col">Budget</th>
        <th scope="col" class="num">Cost</th>
        <th scope="col" class="num">Tokens</th>
        <th scope="col" class="num">Tool calls</th>`,
      budgets.map(budgetRow),
    );
  return page({
    title: "Budgets",
    viewer,
    main: html`<h1>Shared budgets</h1>
      <p class="lede">
        Each budget limits what every run that spends from it may spend together, across processes and machines; each
        figure is the spend so far beside the limit.
      </p>
      ${body}`,
  });
}
