import type { Hono } from "hono";
import type { BudgetInfo } from "../stores/budget-info.js";
import type { RunStore } from "../stores/run-store.js";
import { viewerOf } from "./inbox-context.js";
import type { InboxEnv, InboxParts } from "./inbox-context.js";
import { budgetsPage } from "./pages/budgets-page.js";

/** Every budget of the store, by key; `null` when the store keeps none (it lacks the budget methods). */
export async function storeBudgets(store: RunStore): Promise<BudgetInfo[] | null> {
  if (store.budgets === undefined) return null;
  return store.budgets();
}

/**
 * The budgets page and `GET /api/budgets`, both read-only: budgets are set with `leash budget` or
 * the store's methods, where the change is recorded with who made it.
 */
export function addBudgetRoutes(app: Hono<InboxEnv>, parts: InboxParts): void {
  app.get("/budgets", async (c) => c.html(budgetsPage(await storeBudgets(parts.store), viewerOf(c)).toString()));

  app.get("/api/budgets", async (c) => {
    const budgets = await storeBudgets(parts.store);
    // `keepsBudgets` tells a script a store without budgets apart from a store with none set yet.
    return c.json({ keepsBudgets: budgets !== null, budgets: budgets ?? [] });
  });
}
