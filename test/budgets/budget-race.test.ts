// Processes racing to spend one shared budget, on one SQLite file and on one PostgreSQL schema: each
// saves its run with a tool charge of cost 1 until the store refuses it, and together they take
// exactly the budget's maxCost, never more; every refused save wrote nothing, and every trail verifies.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAudit } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { freshStore, withPostgres } from "../postgres/database.js";
import { startFixture } from "../stores/fixture-process.js";

const RACERS = 4;
const MAX_COST = 41;

type Store = RunStore & AuditSink & Required<Pick<RunStore, "setBudget" | "budget">>;

interface Report {
  runId: string;
  taken: number;
  code: string;
  reason?: string;
}

async function race(store: Store, kind: string, location: string, env: Record<string, string> = {}): Promise<void> {
  await store.setBudget("team-a", { maxCost: MAX_COST });
  const racers = Array.from({ length: RACERS }, (_, index) =>
    startFixture("stores/budget-race-child.ts", [kind, location, `racer${index}`, "team-a"], env),
  );
  await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready", { timeoutMs: 60_000 })));
  for (const racer of racers) racer.child.stdin.write("go\n");
  const reports = await Promise.all(
    racers.map(async (racer) => {
      const line = await racer.waitFor((printed) => printed.startsWith("{"), { timeoutMs: 90_000 });
      assert.equal(await racer.exited, 0, racer.stderr());
      return JSON.parse(line) as Report;
    }),
  );
  for (const report of reports) {
    assert.deepEqual([report.code, report.reason], ["limit_reached", "budget_cost"], JSON.stringify(report));
  }
  const taken = reports.reduce((sum, report) => sum + report.taken, 0);
  assert.equal(taken, MAX_COST, `the racers took ${JSON.stringify(reports)}`);
  assert.deepEqual((await store.budget("team-a"))?.spent, { cost: MAX_COST, tokens: 0, toolCalls: MAX_COST });
  for (const report of reports) {
    const trail = await store.read(report.runId);
    assert.deepEqual(verifyAudit(trail), []);
    assert.equal(trail.length, 1 + report.taken, "a refused save wrote no record");
    assert.equal((await store.load(report.runId))?.revision, 1 + report.taken, "a refused save wrote no state");
  }
}

describe("processes racing to spend a shared budget", () => {
  test(`${RACERS} processes on one SQLite file take exactly a budget's maxCost of ${MAX_COST}, never more`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "leash-budget-race-"));
    const path = join(folder, "runs.db");
    const store = new SqliteStore(path);
    try {
      await race(store, "sqlite", path);
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  withPostgres("budget race on PostgreSQL", (url) => {
    test(`${RACERS} processes on one PostgreSQL schema take exactly a budget's maxCost of ${MAX_COST}, never more`, async () => {
      const made = freshStore(url);
      try {
        await race(made.store, "postgres", url, { LEASH_TEST_SCHEMA: made.schema });
      } finally {
        await made.cleanup();
      }
    });
  });
});
