// A run paused on its shared budget is answered from the command line as any limit request is:
// `leash approve --raise-to` records the raise, and the resume raises the budget for every run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { errorLine, leash, tempFolder } from "../cli/cli-helpers.js";
import { tick, ticker } from "./budget-helpers.js";

test("leash approve --raise-to answers a budget's limit request, and the resume raises the budget", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const cwd = folder.path;
  const db = join(cwd, "app.db");
  const calls: string[] = [];
  const agentOn = (store: SqliteStore): Agent =>
    new Agent({
      tools: [tick(calls)],
      planner: ticker(3),
      store,
      budget: () => "team",
      limits: { askToRaise: ["budget"] },
    });
  const store = new SqliteStore(db);
  await store.setBudget("team", { maxToolCalls: 2 });
  const paused = await agentOn(store).run("tick", { runId: "cli-raise" });
  assert.equal(paused.pending?.kind, "limit");
  await store.close();

  const low = leash(["approve", "cli-raise", "--as", "noor", "--raise-to", "2", "--db", db], { cwd });
  assert.equal(low.status, 2);
  assert.equal(errorLine(low).code, "invalid_answer");
  const approve = leash(["approve", "cli-raise", "--as", "noor", "--raise-to", "5", "--db", db], { cwd });
  assert.equal(approve.status, 0, approve.stderr);
  assert.match(approve.stdout, /budget_tool_calls/);

  const again = new SqliteStore(db);
  t.after(() => again.close());
  const done = await agentOn(again).resume("cli-raise");
  assert.equal(done.status, "completed", JSON.stringify(done.toJSON()));
  assert.equal(calls.length, 3);
  const budget = (await again.budget("team"))!;
  assert.equal(budget.maxToolCalls, 5);
  assert.equal(budget.spent.toolCalls, 3);
  const set = (await again.read("budget:team")).filter((record) => record.event === "budget_set").at(-1)!;
  const data = set.data as { by?: string; origin?: { via?: string } };
  assert.equal(data.by, "noor");
  assert.equal(data.origin?.via, "cli");
});
