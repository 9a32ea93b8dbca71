// Processes whose agents (each with its own store object) spend from one shared budget at the same moment, on one SQLite file and on
// PostgreSQL: the tool calls that ran (counted as lines their effect appended to a file) end exactly
// at the budget's limit and never past it, each refused run stops with the budget's reason, and
// every trail verifies.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlAuditSink, stateAgreesWithTrail, verifyAudit } from "../../src/index.js";
import type { AuditSink, BudgetLimits } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { freshStore, withPostgres } from "../postgres/database.js";
import { startFixture } from "../stores/fixture-process.js";
import type { BudgetStore } from "./budget-helpers.js";

const RACERS = 4;
const RUNS_EACH = 3;
const TICKS = 3;
const CALLS = 7;

interface Report {
  runId: string;
  status: string;
  stopReason: string | null;
  toolCalls: number;
}

/** What a race is run with: the budget's limits, the reason its runs stop with, and where the trails go. */
interface RaceCase {
  limits: BudgetLimits;
  reason: string;
  separateSink: boolean;
}

async function race(
  store: BudgetStore,
  kind: string,
  location: string,
  item: RaceCase,
  env: Record<string, string> = {},
) {
  const folder = mkdtempSync(join(tmpdir(), "leash-budget-race-"));
  const effects = join(folder, "effects.jsonl");
  const sinkOf = (index: number): string => join(folder, `trail-${index}.jsonl`);
  try {
    await store.setBudget("race", item.limits);
    const racers = Array.from({ length: RACERS }, (_, index) =>
      startFixture(
        "budgets/budget-race-child.ts",
        [
          kind,
          location,
          effects,
          `racer${index}`,
          String(RUNS_EACH),
          String(TICKS),
          ...(item.separateSink ? [sinkOf(index)] : []),
        ],
        env,
      ),
    );
    await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready", { timeoutMs: 60_000 })));
    for (const racer of racers) racer.child.stdin.write("go\n");
    const reports = await Promise.all(
      racers.map(async (racer) => {
        await racer.waitFor((line) => line.startsWith("{"), { nth: RUNS_EACH, timeoutMs: 90_000 });
        await racer.exited;
        return racer.lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Report);
      }),
    );
    const runs = reports.flat();
    assert.equal(runs.length, RACERS * RUNS_EACH);
    const ran = existsSync(effects)
      ? readFileSync(effects, "utf8")
          .split("\n")
          .filter((line) => line !== "")
      : [];
    assert.equal(ran.length, CALLS, "the calls that ran end exactly at the budget's limit");
    assert.equal(
      runs.reduce((sum, run) => sum + run.toolCalls, 0),
      CALLS,
      "the runs' own counts agree",
    );
    const budget = (await store.budget("race"))!;
    assert.equal(budget.spent.toolCalls, CALLS);
    assert.ok(Math.abs(budget.spent.cost - CALLS * 0.5) < 1e-9);
    for (const run of runs) {
      assert.ok(
        run.status === "completed" || (run.status === "stopped" && run.stopReason === item.reason),
        JSON.stringify(run),
      );
    }
    assert.ok(runs.some((run) => run.status === "stopped"));
    for (const [index, report] of reports.entries()) {
      const sink: AuditSink = item.separateSink ? new JsonlAuditSink(sinkOf(index)) : store;
      for (const run of report) {
        const trail = await sink.read(run.runId);
        assert.deepEqual(verifyAudit(trail), []);
        assert.deepEqual(stateAgreesWithTrail((await store.load(run.runId))!, trail).problems, []);
        const starts = trail.filter((record) => record.event === "tool_started").length;
        assert.equal(starts, run.toolCalls, `${run.runId}: a start for each call that ran, none for a refused one`);
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const CASES: [string, RaceCase][] = [
  [`maxToolCalls ${CALLS}`, { limits: { maxToolCalls: CALLS }, reason: "budget_tool_calls", separateSink: false }],
  [`maxCost ${CALLS * 0.5}`, { limits: { maxCost: CALLS * 0.5 }, reason: "budget_cost", separateSink: false }],
  [
    `maxToolCalls ${CALLS}, trails in separate sinks`,
    { limits: { maxToolCalls: CALLS }, reason: "budget_tool_calls", separateSink: true },
  ],
];

describe("processes racing for one shared budget", () => {
  for (const [name, item] of CASES) {
    test(`${RACERS} processes on one SQLite file run exactly ${CALLS} calls on a budget of ${name}`, async () => {
      const folder = mkdtempSync(join(tmpdir(), "leash-budget-race-db-"));
      const path = join(folder, "runs.db");
      const store = new SqliteStore(path) as unknown as BudgetStore;
      try {
        await race(store, "sqlite", path, item);
      } finally {
        await store.close();
        rmSync(folder, { recursive: true, force: true });
      }
    });
  }

  withPostgres("budget race on PostgreSQL", (url) => {
    for (const [name, item] of CASES) {
      test(`${RACERS} processes on one PostgreSQL schema run exactly ${CALLS} calls on a budget of ${name}`, async () => {
        const made = freshStore(url);
        try {
          await race(made.store, "postgres", url, item, { LEASH_TEST_SCHEMA: made.schema });
        } finally {
          await made.cleanup();
        }
      });
    }
  });
});
