// Real processes racing on one SQLite file. Eight racers are started once (a tsx process costs about
// half a second of CPU) and then given three races, each command sent to all of them in one tick:
// opening a new file at once, resuming an approved run each bringing the approval, and resuming an
// approved run on the answer recorded in the store.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Approval, verifyAudit } from "../../src/index.js";
import type { RunState } from "../../src/index.js";
import { SQLITE_SCHEMA_VERSION, SqliteStore } from "../../src/stores/sqlite/index.js";
import { readEffects, storeAgent } from "../fixtures/stores/store-agent.js";
import { killHard, startFixture } from "./fixture-process.js";
import type { FixtureProcess } from "./fixture-process.js";

const RACERS = 8;

interface Report {
  runId: string;
  resumed?: boolean;
  status?: string;
  outcome?: string | null;
  name?: string;
  code?: string;
  message?: string;
}

describe("SqliteStore with eight concurrent processes", () => {
  let directory = "";
  let racers: FixtureProcess[] = [];
  let races = 0;

  /** Sends each racer its command in the same tick and collects one report from each. */
  async function race(command: (index: number) => Record<string, unknown>): Promise<Report[]> {
    races += 1;
    const nth = races;
    racers.forEach((racer, index) => racer.child.stdin.write(`${JSON.stringify(command(index))}\n`));
    return Promise.all(
      racers.map(async (racer) => JSON.parse(await racer.waitFor((line) => line.startsWith("{"), { nth })) as Report),
    );
  }

  /** A run paused for approval of its write, with the answer recorded in the store. */
  async function approvedRun(database: string, runId: string, effects: string): Promise<string> {
    const store = new SqliteStore(database);
    try {
      const paused = await storeAgent({ store, tool: "write", effectsFile: effects }).run("write the note", { runId });
      assert.equal(paused.status, "awaiting_approval");
      await store.answer(runId, Approval.grant(paused.pending!.digest, "allen"));
      return paused.pending!.digest;
    } finally {
      await store.close();
    }
  }

  /** The run's stored state, its trail verified and its head the trail's last record. */
  async function settled(database: string, runId: string): Promise<{ state: RunState; events: string[] }> {
    const store = new SqliteStore(database);
    try {
      const state = (await store.load(runId)) as RunState;
      const trail = await store.read(runId);
      assert.deepEqual(verifyAudit(store.records), []);
      assert.deepEqual(state.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
      return { state, events: trail.map((record) => record.event) };
    } finally {
      await store.close();
    }
  }

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "leash-sqlite-race-"));
    racers = Array.from({ length: RACERS }, () => startFixture("stores/race-child.ts", ["sqlite"]));
    await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready")));
  });

  after(async () => {
    for (const racer of racers) racer.child.stdin.end();
    // Closing stdin ends each racer; any that lingers is killed after a grace period.
    await Promise.all(
      racers.map((racer) => Promise.race([racer.exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())])),
    );
    await Promise.all(racers.map((racer) => killHard(racer)));
    rmSync(directory, { recursive: true, force: true });
  });

  test("eight processes opening a new file at once all create or find the tables, and all work", async () => {
    const database = join(directory, "fresh.db");
    const reports = await race((index) => ({
      open: database,
      runId: `opened-${index}`,
      effects: join(directory, "opened.jsonl"),
    }));
    assert.deepEqual(
      reports.map((report) => report.status),
      Array.from({ length: RACERS }, () => "completed"),
      JSON.stringify(reports),
    );
    const raw = new Database(database, { readonly: true });
    try {
      assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
      assert.deepEqual(raw.prepare("SELECT key, value FROM leash_meta").all(), [
        { key: "schema_version", value: String(SQLITE_SCHEMA_VERSION) },
      ]);
    } finally {
      raw.close();
    }
    const store = new SqliteStore(database);
    try {
      assert.equal((await store.list({ status: "completed" })).length, RACERS);
      assert.deepEqual(verifyAudit(store.records), []);
    } finally {
      await store.close();
    }
  });

  test("eight processes resume one approved run at once, each bringing the approval: one runs it once, the others get a StateError and change nothing", async () => {
    const database = join(directory, "explicit.db");
    const effects = join(directory, "explicit.jsonl");
    const digest = await approvedRun(database, "explicit", effects);
    const reports = await race(() => ({ resume: database, runId: "explicit", effects, approval: digest }));
    const winners = reports.filter((report) => report.resumed === true);
    assert.deepEqual(
      winners.map(({ status, outcome }) => ({ status, outcome })),
      [{ status: "completed", outcome: "executed" }],
      JSON.stringify(reports),
    );
    for (const loser of reports.filter((report) => report.resumed !== true)) {
      assert.equal(loser.name, "StateError", JSON.stringify(loser));
      assert.ok(loser.code === "stale_state" || loser.code === "run_ended", JSON.stringify(loser));
    }
    assert.equal(readEffects(effects).length, 1, "the approved write ran once");
    const { state, events } = await settled(database, "explicit");
    assert.equal(state.status, "completed");
    assert.equal(state.steps[0]?.outcome, "executed");
    assert.equal(events.filter((event) => event === "run_resumed").length, 1, "only the winner wrote");
    assert.equal(events.filter((event) => event === "tool_started").length, 1);
  });

  test("eight processes resume(runId) on the answer recorded in the store: the write never runs twice and state and trail agree", async (context) => {
    const database = join(directory, "recorded.db");
    const effects = join(directory, "recorded.jsonl");
    await approvedRun(database, "recorded", effects);
    const reports = await race(() => ({ resume: database, runId: "recorded", effects, approval: null }));
    context.diagnostic(
      `outcomes: ${reports.map((report) => (report.resumed === true ? `${report.status}/${report.outcome}` : report.code)).join(", ")}`,
    );
    for (const report of reports.filter((item) => item.resumed !== true)) {
      assert.equal(report.name, "StateError", JSON.stringify(report));
      assert.ok(report.code === "stale_state" || report.code === "run_ended", JSON.stringify(report));
    }
    const executed = reports.filter((report) => report.outcome === "executed").length;
    assert.ok(executed <= 1, JSON.stringify(reports));
    const ran = readEffects(effects).length;
    assert.ok(ran <= 1, "the write never runs twice");
    const { state } = await settled(database, "recorded");
    // Usually one racer claims the paused run and the rest are refused. A racer that loads the run
    // only after the winner's claim finds it `running` and, as the contract says of resume(runId)
    // without approvals, takes it for a crashed run: it is refused if the winner saved first, or else
    // it recovers the run (the winner's next save is then refused): the write, if it started, is
    // `interrupted` and never repeated; if it had not started, its step asks for approval again.
    if (state.status === "completed") {
      assert.ok(
        state.steps[0]?.outcome === "executed" || state.steps[0]?.outcome === "interrupted",
        state.steps[0]?.outcome ?? "none",
      );
      assert.equal(ran, 1);
    } else {
      assert.equal(state.status, "awaiting_approval");
      assert.equal(ran, 0);
    }
    if (executed === 1) assert.equal(ran, 1);
  });
});
