// The inbox's budgets page and `GET /api/budgets` through the inbox's own HTTP routes, in this
// process, on a MemoryStore (which keeps budgets whatever the SQLite store has landed): each
// budget's spend beside its limit, a hostile key escaped, and a store without budget methods said
// to keep none. serve-budgets.test.ts runs the same through the real `leash serve` on SQLite.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore } from "../../src/index.js";
import type { BudgetInfo, RunStore } from "../../src/index.js";
import type { ApproverRegistry } from "../../src/inbox/approver-registry.js";
import { EventStreams } from "../../src/inbox/event-streams.js";
import { inboxApp } from "../../src/inbox/inbox-app.js";
import type { InboxParts } from "../../src/inbox/inbox-context.js";
import { KeyedQueue } from "../../src/inbox/keyed-queue.js";
import { SessionStore } from "../../src/inbox/session-store.js";
import { SignInThrottle } from "../../src/inbox/sign-in-throttle.js";
import { StoreWatcher } from "../../src/inbox/store-watcher.js";
import type { CliStore } from "../../src/operate/open-store.js";

const TOKEN = "leash_at_test";

/** A registry that knows one approver, noor, by one token: the routes' sign-in check, without a database. */
const registry: ApproverRegistry = {
  add: () => Promise.reject(new Error("not in this test")),
  list: () => Promise.resolve([]),
  remove: () => Promise.resolve(false),
  nameOf: (token) => Promise.resolve(token === TOKEN ? "noor" : undefined),
  rolesOf: (name) => Promise.resolve(name === "noor" ? ["approver"] : undefined),
  close: () => Promise.resolve(),
};

/** The inbox's app over a store, as `leash serve` builds it, answering any `Host`. */
function inboxOver(store: CliStore) {
  const watcher = new StoreWatcher(store);
  const parts: InboxParts = {
    store,
    location: { kind: "sqlite", db: "memory", label: "memory", args: "--db memory" },
    registry,
    sessions: new SessionStore(),
    answerQueue: new KeyedQueue(),
    throttle: new SignInThrottle(),
    streams: new EventStreams(watcher),
    hosts: null,
  };
  const app = inboxApp(parts);
  return (path: string) => app.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
}

// A key a person could type, and a page could be attacked with: markup, a quote, an ampersand, a
// right-to-left override and a line separator (the store refuses only control characters).
const HOSTILE = `<script>alert("x")</script> & 'q' \u202e \u2028 end`;

async function storeWithBudgets(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.setBudget("team-a", { maxCost: 100, maxToolCalls: 10 }, { by: "noor" });
  await store.setBudget(HOSTILE, { maxTokens: 5000 });
  // The spend a run's saves would take, charged as the loop charges it.
  await store.chargeBudget({ key: "team-a", cost: 12.5, tokens: 300, toolCalls: 4, check: "none" });
  return store;
}

test("the budgets page shows each budget's spend beside its limit and escapes a hostile key", async () => {
  const request = inboxOver(await storeWithBudgets());
  const response = await request("/budgets");
  assert.equal(response.status, 200);
  const page = await response.text();
  const row = /<tr data-budget-key="team-a">([\s\S]*?)<\/tr>/.exec(page)?.[1] ?? "";
  assert.match(row, /data-field="cost"[^>]*>\s*12\.5 of 100\s*</);
  assert.match(row, /data-field="tokens"[^>]*>\s*300 <small>\(no limit\)<\/small>/);
  assert.match(row, /data-field="tool-calls"[^>]*>\s*4 of 10\s*</);
  assert.ok(!page.includes("<script>alert"), "the key's markup is escaped");
  assert.match(page, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; &#39;q&#39;/);
  assert.match(page, /data-field="tokens"[^>]*>\s*0 of 5000\s*</);
  // The override and the separator are shown as visible escapes, never as characters that reorder or break the page.
  assert.ok(!page.includes("\u202e") && !page.includes("\u2028"), "no raw override or separator");
  assert.match(page, /<span class="ctl">\\u202e<\/span>/);
  assert.match(page, /<span class="ctl">\\u2028<\/span>/);
  assert.match(page, /<a href="\/budgets">Budgets<\/a>/, "the navigation links the page");
});

test("GET /api/budgets answers every budget by key with its exact spend and limits", async () => {
  const request = inboxOver(await storeWithBudgets());
  const response = await request("/api/budgets");
  assert.equal(response.status, 200);
  const body = (await response.json()) as { keepsBudgets: boolean; budgets: BudgetInfo[] };
  assert.equal(body.keepsBudgets, true);
  assert.deepEqual(
    body.budgets.find((budget) => budget.key === "team-a"),
    { key: "team-a", maxCost: 100, maxToolCalls: 10, spent: { cost: 12.5, tokens: 300, toolCalls: 4 } },
  );
  assert.deepEqual(
    body.budgets.find((budget) => budget.key === HOSTILE),
    { key: HOSTILE, maxTokens: 5000, spent: { cost: 0, tokens: 0, toolCalls: 0 } },
  );
});

test("the budgets routes need a signed-in approver", async () => {
  const store = await storeWithBudgets();
  const app = inboxApp({
    store,
    location: { kind: "sqlite", db: "memory", label: "memory", args: "--db memory" },
    registry,
    sessions: new SessionStore(),
    answerQueue: new KeyedQueue(),
    throttle: new SignInThrottle(),
    streams: new EventStreams(new StoreWatcher(store)),
    hosts: null,
  });
  assert.equal((await app.request("/api/budgets")).status, 401);
  const page = await app.request("/budgets");
  assert.notEqual(page.status, 200);
  assert.ok(!(await page.text()).includes("team-a"), "nothing of a budget is shown to someone not signed in");
});

test("a store without budget methods gets a page saying it keeps no budgets", async () => {
  const memory = new MemoryStore();
  // A store that implements the port without its optional budget methods, as a custom store may.
  const hidden = new Set<PropertyKey>(["setBudget", "budget", "resetBudget", "budgets", "chargeBudget"]);
  const store = new Proxy(memory, {
    get: (target, property) => {
      if (hidden.has(property)) return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as CliStore & RunStore;
  assert.equal((store as { budgets?: unknown }).budgets, undefined);
  const request = inboxOver(store);
  const page = await (await request("/budgets")).text();
  assert.match(page, /This store keeps no shared budgets\./);
  assert.deepEqual(await (await request("/api/budgets")).json(), { keepsBudgets: false, budgets: [] });
  const empty = await (await inboxOver(new MemoryStore())("/budgets")).text();
  assert.match(empty, /No shared budgets\./);
});
