// Shared budgets in the inbox, through the real `leash serve` on SQLite and (with DATABASE_URL)
// PostgreSQL: the budgets page, linked from every page, shows each budget's spend beside its limit
// and escapes a hostile key; `GET /api/budgets` answers the exact budgets as JSON.
import assert from "node:assert/strict";
import type { BudgetInfo } from "../../src/index.js";
import { isLeashError } from "../../src/index.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, serve, signIn } from "./serve-helpers.js";

// Markup, a quote, an ampersand, a right-to-left override and a line separator: the store refuses
// only control characters, so a key may hold all of these.
const HOSTILE = `<script>alert("x")</script> & 'q' \u202e \u2028 end`;

eachStore(
  "the budgets page shows each budget's spend beside its limit and escapes a hostile key",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const { store } = target;
    await store.setBudget!("team-a", { maxCost: 100, maxToolCalls: 10 });
    await store.chargeBudget!({ key: "team-a", cost: 0.1 + 0.2 + 12.2, tokens: 300, toolCalls: 4, check: "none" });
    await store.setBudget!(HOSTILE, { maxTokens: 5000 });
    // A newline in a key is refused by the store before anything is written.
    await assert.rejects(store.setBudget!("team\n<b>", { maxCost: 1 }), (error) =>
      isLeashError(error, "invalid_option"),
    );
    const served = await serve(t, target);
    const session = await signIn(served, token);

    const home = await (await fetch(served.url, { headers: { Cookie: session.cookie } })).text();
    assert.match(home, /<a href="\/budgets">Budgets<\/a>/, "every page's navigation links the budgets page");

    const response = await fetch(new URL("/budgets", served.url), { headers: { Cookie: session.cookie } });
    assert.equal(response.status, 200);
    const page = await response.text();
    const row = /<tr data-budget-key="team-a">([\s\S]*?)<\/tr>/.exec(page)?.[1] ?? "";
    assert.match(row, /data-field="cost"[^>]*>\s*12\.5 of 100\s*</, "the cost rounded as the command line rounds it");
    assert.match(row, /data-field="tokens"[^>]*>\s*300 <small>\(no limit\)<\/small>/);
    assert.match(row, /data-field="tool-calls"[^>]*>\s*4 of 10\s*</);
    assert.ok(!page.includes("<script>alert"), "the key's markup is escaped");
    assert.match(page, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; &#39;q&#39;/);
    assert.ok(!page.includes("\u202e") && !page.includes("\u2028"), "no raw override or separator");
    assert.match(page, /<span class="ctl">\\u202e<\/span>/);
    assert.ok(!page.includes("team\n"), "the refused key was never stored");
  },
);

eachStore("GET /api/budgets answers every budget with its exact spend and limits", async (t, target) => {
  const token = await addApprover(target, "noor");
  const { store } = target;
  const served = await serve(t, target);
  const api = (path: string) => fetch(new URL(path, served.url), { headers: { Authorization: `Bearer ${token}` } });
  assert.deepEqual(await (await api("/api/budgets")).json(), { keepsBudgets: true, budgets: [] });
  assert.match(await (await api("/budgets")).text(), /No shared budgets\./);

  await store.setBudget!("team-a", { maxCost: 100, maxToolCalls: 10 });
  await store.chargeBudget!({ key: "team-a", cost: 0.1 + 0.2, tokens: 300, toolCalls: 4, check: "none" });
  await store.setBudget!(HOSTILE, { maxTokens: 5000 });
  const response = await api("/api/budgets");
  assert.equal(response.status, 200);
  const body = (await response.json()) as { keepsBudgets: boolean; budgets: BudgetInfo[] };
  assert.equal(body.keepsBudgets, true);
  assert.deepEqual(body.budgets, await store.budgets!(), "the store's budgets, exact (0.1 + 0.2 is not rounded)");
  assert.equal(body.budgets.find((budget) => budget.key === "team-a")?.spent.cost, 0.1 + 0.2);
  assert.ok(body.budgets.some((budget) => budget.key === HOSTILE));

  const anonymous = await fetch(new URL("/api/budgets", served.url));
  assert.equal(anonymous.status, 401);
});
