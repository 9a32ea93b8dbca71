// `leash budget` and `leash budgets` through the real bin, on SQLite and (with DATABASE_URL)
// PostgreSQL: a budget shown with each limit's spend beside it, set with the limits given merged
// into the others, reset, listed, printed as JSON; an unknown key and bad flags change nothing; and
// every change is a record of the budget's chain that `leash verify` checks.
import assert from "node:assert/strict";
import type { BudgetInfo } from "../../src/index.js";
import { errorLine, leash } from "./cli-helpers.js";
import type { CliResult } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import type { CliStore } from "./cli-stores.js";

/** Runs `leash ...args` on the test's store, and expects it to succeed. */
function ok(target: CliStore, args: string[]): CliResult {
  const result = leash([...args, ...target.args], { cwd: target.cwd });
  assert.equal(result.status, 0, result.stderr);
  return result;
}

/** A PostgreSQL store makes its tables at its first use; the commands open only a store that exists. */
async function ready(target: CliStore): Promise<void> {
  await target.store.list();
}

eachStore(
  "leash budget shows each limit with the spend beside it, costs rounded, and --json the whole budget",
  async (_t, target) => {
    await ready(target);
    const { store } = target;
    await store.setBudget!("team-a", { maxCost: 100, maxToolCalls: 10 });
    await store.chargeBudget!({ key: "team-a", cost: 0.1 + 0.2 + 12.2, tokens: 300, toolCalls: 4, check: "none" });
    const shown = ok(target, ["budget", "team-a"]);
    assert.equal(
      shown.stdout,
      ["budget team-a", "  cost        12.5 of 100", "  tokens      300, no limit", "  tool calls  4 of 10", ""].join(
        "\n",
      ),
    );
    const json = JSON.parse(ok(target, ["budget", "team-a", "--json"]).stdout) as BudgetInfo;
    assert.deepEqual(json, await store.budget!("team-a"), "--json is the whole BudgetInfo, exact");
    assert.equal(json.spent.toolCalls, 4);
  },
);

eachStore(
  "leash budget sets the limits given and keeps the others, clears one, and keeps the spend",
  async (_t, target) => {
    await ready(target);
    const { store } = target;
    const created = JSON.parse(
      ok(target, ["budget", "team-a", "--max-cost", "100", "--max-tool-calls", "10", "--as", "noor", "--json"]).stdout,
    ) as BudgetInfo;
    assert.deepEqual(created, {
      key: "team-a",
      maxCost: 100,
      maxToolCalls: 10,
      spent: { cost: 0, tokens: 0, toolCalls: 0 },
    });
    await store.chargeBudget!({ key: "team-a", cost: 12.5, tokens: 300, toolCalls: 4, check: "none" });

    const raised = ok(target, ["budget", "team-a", "--max-cost", "200.5", "--max-tokens", "5000", "--as", "noor"]);
    assert.match(raised.stdout, /cost {8}12\.5 of 200\.5\n/);
    assert.deepEqual(await store.budget!("team-a"), {
      key: "team-a",
      maxCost: 200.5,
      maxTokens: 5000,
      maxToolCalls: 10,
      spent: { cost: 12.5, tokens: 300, toolCalls: 4 },
    });

    ok(target, ["budget", "team-a", "--clear-max-tool-calls", "--as", "noor"]);
    assert.deepEqual(await store.budget!("team-a"), {
      key: "team-a",
      maxCost: 200.5,
      maxTokens: 5000,
      spent: { cost: 12.5, tokens: 300, toolCalls: 4 },
    });
  },
);

eachStore("leash budget --reset sets the spend back to zero and keeps the limits", async (_t, target) => {
  await ready(target);
  const { store } = target;
  await store.setBudget!("team-a", { maxCost: 100 });
  await store.chargeBudget!({ key: "team-a", cost: 40, tokens: 10, toolCalls: 2, check: "none" });
  const reset = JSON.parse(
    ok(target, ["budget", "team-a", "--reset", "--as", "noor", "--note", "a new month", "--json"]).stdout,
  ) as BudgetInfo;
  assert.deepEqual(reset, { key: "team-a", maxCost: 100, spent: { cost: 0, tokens: 0, toolCalls: 0 } });
  assert.deepEqual(await store.budget!("team-a"), reset);
});

eachStore(
  "leash budget of a key with no budget exits 2 with budget_not_found and creates nothing",
  async (_t, target) => {
    await ready(target);
    for (const flags of [[], ["--reset", "--as", "noor"], ["--clear-max-cost"], ["--json"]]) {
      const result = leash(["budget", "nope", ...flags, ...target.args], { cwd: target.cwd });
      assert.equal(result.status, 2, flags.join(" "));
      if (flags.includes("--json")) {
        const error = (JSON.parse(result.stderr) as { error: { code: string } }).error;
        assert.equal(error.code, "budget_not_found");
      } else {
        const { code, message } = errorLine(result);
        assert.equal(code, "budget_not_found");
        assert.match(message, /No shared budget `nope`.*leash budgets lists them/);
      }
    }
    assert.deepEqual(await target.store.budgets!(), []);
    assert.deepEqual(await target.store.read("budget:nope"), []);
  },
);

eachStore(
  "leash budget refuses bad numbers, a bad key and conflicting flags, and changes nothing",
  async (_t, target) => {
    await ready(target);
    const { store } = target;
    await store.setBudget!("team-a", { maxCost: 100, maxTokens: 50 });
    const before = await store.budget!("team-a");
    const recordsBefore = (await store.read("budget:team-a")).length;
    const cases: [string[], string][] = [
      [["budget", "team-a", "--max-cost", "abc"], "usage"],
      [["budget", "team-a", "--max-cost", "-1"], "usage"],
      [["budget", "team-a", "--max-cost", "1e3"], "usage"],
      [["budget", "team-a", "--max-cost", "Infinity"], "usage"],
      [["budget", "team-a", "--max-tokens", "2.5"], "usage"],
      [["budget", "team-a", "--max-tool-calls", "-3"], "usage"],
      [["budget", "team-a", "--max-tokens", "9007199254740993"], "usage"],
      // A good limit beside a bad one is not set either: the flags are checked before the store is opened.
      [["budget", "team-a", "--max-cost", "5", "--max-tokens", "x"], "usage"],
      [["budget", "team-a", "--max-cost", "5", "--clear-max-cost"], "invalid_option"],
      [["budget", "team-a", "--as", "noor"], "invalid_option"],
      [["budget", "", "--max-cost", "5"], "invalid_option"],
      [["budget", "team\nb", "--max-cost", "5"], "invalid_option"],
      [["budget", "x".repeat(201), "--max-cost", "5"], "invalid_option"],
    ];
    for (const [args, code] of cases) {
      const result = leash([...args, ...target.args], { cwd: target.cwd });
      assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(errorLine(result).code, code, args.join(" "));
    }
    assert.deepEqual(await store.budget!("team-a"), before);
    assert.equal((await store.read("budget:team-a")).length, recordsBefore);
    assert.deepEqual(
      (await store.budgets!()).map((budget) => budget.key),
      ["team-a"],
    );
  },
);

eachStore("leash budgets lists every budget on one line each, and --json the whole list", async (_t, target) => {
  await ready(target);
  const empty = ok(target, ["budgets"]);
  assert.equal(empty.stdout, "No shared budgets.\n");
  assert.deepEqual(JSON.parse(ok(target, ["budgets", "--json"]).stdout), []);
  const { store } = target;
  await store.setBudget!("team-b", { maxTokens: 5000 });
  await store.setBudget!("team-a", { maxCost: 100, maxToolCalls: 10 });
  await store.chargeBudget!({ key: "team-a", cost: 12.5, tokens: 300, toolCalls: 4, check: "none" });
  const listed = ok(target, ["budgets"])
    .stdout.split("\n")
    .filter((line) => line !== "");
  assert.equal(listed.length, 3);
  assert.match(listed[0]!, /^KEY\s+COST\s+TOKENS\s+TOOL CALLS$/);
  assert.match(listed[1]!, /^team-a\s+12\.5 of 100\s+300, no limit\s+4 of 10$/);
  assert.match(listed[2]!, /^team-b\s+0, no limit\s+0 of 5000\s+0, no limit$/);
  const json = JSON.parse(ok(target, ["budgets", "--json"]).stdout) as BudgetInfo[];
  assert.deepEqual(json, await store.budgets!());
});

eachStore(
  "budget changes from the command line are records of the budget's chain, with who and where, that leash verify checks",
  async (_t, target) => {
    await ready(target);
    ok(target, ["budget", "team-a", "--max-cost", "100", "--as", "noor", "--note", "October"]);
    ok(target, ["budget", "team-a", "--max-tool-calls", "10", "--as", "ada"]);
    ok(target, ["budget", "team-a", "--reset", "--as", "noor"]);
    const records = await target.store.read("budget:team-a");
    assert.deepEqual(
      records.map((record) => record.event),
      ["budget_set", "budget_set", "budget_reset"],
    );
    const data = records.map(
      (record) =>
        record.data as {
          by?: string;
          note?: string;
          maxCost?: number;
          maxToolCalls?: number;
          origin?: { via?: string; user?: string; host?: string };
        },
    );
    assert.equal(data[0]?.by, "noor");
    assert.equal(data[0]?.note, "October");
    // The second change kept the first one's cost limit: the set record carries both.
    assert.equal(data[1]?.maxCost, 100);
    assert.equal(data[1]?.maxToolCalls, 10);
    assert.equal(data[1]?.by, "ada");
    for (const item of data) {
      assert.equal(item.origin?.via, "cli");
      assert.equal(typeof item.origin?.user, "string");
      assert.equal(typeof item.origin?.host, "string");
    }
    const verified = ok(target, ["verify"]);
    assert.match(verified.stdout, /Every chain holds/);
  },
);

eachStore("a budget's key is printed escaped: no key can repaint the terminal", async (_t, target) => {
  await ready(target);
  const key = "team \u202eevil\u001b"; // refused: a control character
  const refused = leash(["budget", key, "--max-cost", "1", ...target.args], { cwd: target.cwd });
  assert.equal(errorLine(refused).code, "invalid_option");
  const hostile = "team \u202e<b>evil</b>";
  ok(target, ["budget", hostile, "--max-cost", "1"]);
  const shown = ok(target, ["budget", hostile]).stdout;
  assert.ok(!shown.includes("\u202e"), "the override is escaped");
  assert.match(shown, /^budget team \\u202e<b>evil<\/b>\n/);
  assert.ok(!ok(target, ["budgets"]).stdout.includes("\u202e"));
  assert.ok(!ok(target, ["budgets", "--json"]).stdout.includes("\u202e"));
});
