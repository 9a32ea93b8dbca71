// Processes racing for the uses of one standing grant, on one SQLite file and on PostgreSQL: with k
// uses, exactly k tool calls run (counted as lines their effect appended to a file), the others
// pause, and every trail verifies.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateAgreesWithTrail, verifyAudit } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { readWorkerEffects } from "../fixtures/postgres/worker-agent.js";
import { freshStore, withPostgres } from "../postgres/database.js";
import { startFixture } from "../stores/fixture-process.js";

const RACERS = 4;
const RUNS_EACH = 3;
const USES = 5;

type Store = RunStore & AuditSink & Required<Pick<RunStore, "grant" | "grants">>;

async function race(store: Store, kind: string, location: string, env: Record<string, string> = {}): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "leash-grant-race-"));
  const effects = join(folder, "effects.jsonl");
  try {
    const grant = await store.grant({ tool: "write_note", maxUses: USES, by: "noor" });
    const racers = Array.from({ length: RACERS }, (_, index) =>
      startFixture("stores/grant-race-child.ts", [kind, location, effects, `racer${index}`, String(RUNS_EACH)], env),
    );
    await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready", { timeoutMs: 60_000 })));
    for (const racer of racers) racer.child.stdin.write("go\n");
    const reports = await Promise.all(
      racers.map(async (racer) => {
        await racer.waitFor((line) => line.startsWith("{"), { nth: RUNS_EACH, timeoutMs: 90_000 });
        await racer.exited;
        return racer.lines
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { runId: string; status: string });
      }),
    );
    const runs = reports.flat();
    assert.equal(runs.length, RACERS * RUNS_EACH);
    const completed = runs.filter((run) => run.status === "completed");
    assert.equal(completed.length, USES, JSON.stringify(runs));
    assert.equal(runs.filter((run) => run.status === "awaiting_approval").length, RACERS * RUNS_EACH - USES);
    assert.equal(readWorkerEffects(effects).length, USES, "exactly as many calls ran as the grant had uses");
    assert.deepEqual((await store.grants())[0]?.uses, USES);
    const uses: number[] = [];
    for (const run of runs) {
      const trail = await store.read(run.runId);
      assert.deepEqual(verifyAudit(trail), []);
      assert.deepEqual(stateAgreesWithTrail((await store.load(run.runId))!, trail).problems, []);
      for (const record of trail) {
        const origin = (record.data as { origin?: { grant?: string; use?: number } }).origin;
        if (record.event === "approval_answered" && origin?.grant === grant.id) uses.push(origin.use!);
      }
    }
    assert.deepEqual(
      uses.sort((a, b) => a - b),
      [1, 2, 3, 4, 5],
      "each use was taken once",
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("processes racing for a standing grant", () => {
  test(`${RACERS} processes on one SQLite file run exactly ${USES} calls on a grant of ${USES} uses`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "leash-grant-race-db-"));
    const path = join(folder, "runs.db");
    const store = new SqliteStore(path);
    try {
      await race(store, "sqlite", path);
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  withPostgres("grant race on PostgreSQL", (url) => {
    test(`${RACERS} processes on one PostgreSQL schema run exactly ${USES} calls on a grant of ${USES} uses`, async () => {
      const made = freshStore(url);
      try {
        await race(made.store, "postgres", url, { LEASH_TEST_SCHEMA: made.schema });
      } finally {
        await made.cleanup();
      }
    });
  });
});
