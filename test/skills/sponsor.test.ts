// Sponsors (API.md section 19): an agent's `sponsor` is kept in each run's state and `run_started`
// record, carried to a skill's later attempts, listed in the run summaries, and named by the outbox's
// gave_up and run_ended events, also when the store is not the run's audit sink.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Decision, MemoryAuditSink, MemoryStore, isLeashError } from "../../src/index.js";
import type { AuditSink, NotificationEvent, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { summarize } from "../helpers/summarize-skill.js";

type OutboxStore = RunStore & Required<Pick<RunStore, "notifications" | "summaries">>;

/** An agent whose every answer the skill refuses: the work gives up after two attempts. */
function failingAgent(store: RunStore, audit: AuditSink, sponsor?: string): Agent {
  return new Agent({
    tools: [],
    planner: () => Decision.finish({ words: 1000 }),
    store,
    audit,
    ...(sponsor === undefined ? {} : { sponsor }),
  });
}

async function outbox(store: OutboxStore): Promise<NotificationEvent[]> {
  return (await store.notifications({ limit: 100 })).events.toReversed();
}

async function checkSponsoredWork(store: OutboxStore, audit: AuditSink): Promise<void> {
  const outcome = await failingAgent(store, audit, "noor").do(summarize, "the manual", {
    limits: { maxRejections: 0 },
  });
  assert.equal(outcome.status, "failed");
  const last = outcome.state.runId;
  const first = outcome.state.retryOf!;
  for (const runId of [first, last]) {
    assert.equal((await store.load(runId))?.sponsor, "noor", "every attempt carries the sponsor");
    const started = (await audit.read(runId)).find((record) => record.event === "run_started");
    assert.equal((started?.data as { sponsor?: unknown }).sponsor, "noor");
  }
  const { runs } = await store.summaries({ status: "failed" });
  assert.deepEqual(
    runs.map((run) => run.sponsor),
    ["noor", "noor"],
  );
  assert.deepEqual((await store.load(last))?.gaveUp, { attempts: 2, problem: outcome.state.failure!.message });
  const events = await outbox(store);
  const gaveUp = events.filter((event) => event.type === "gave_up");
  assert.equal(gaveUp.length, 1, "one gave_up for the work");
  assert.deepEqual(gaveUp[0]!.data, {
    runId: last,
    skill: "Summarize",
    attempts: 2,
    problem: outcome.state.failure!.message,
    sponsor: "noor",
  });
  for (const ended of events.filter((event) => event.type === "run_ended")) assert.equal(ended.data.sponsor, "noor");
  assert.equal(events.filter((event) => event.type === "run_ended").length, 2, "one run_ended per attempt");
}

test("a sponsor is in every attempt's state, run_started record and summary, and in the gave_up and run_ended events", async () => {
  const store = new MemoryStore();
  await checkSponsoredWork(store, store);
  const folder = mkdtempSync(join(tmpdir(), "leash-sponsor-"));
  const sqlite = new SqliteStore(join(folder, "runs.db"));
  try {
    await checkSponsoredWork(sqlite, sqlite);
  } finally {
    await sqlite.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("with a separate audit sink the store still announces the work that gave up, from the state", async () => {
  await checkSponsoredWork(new MemoryStore(), new MemoryAuditSink());
});

test("work without a sponsor names none", async () => {
  const store = new MemoryStore();
  const outcome = await failingAgent(store, store).do(summarize, "the manual", { limits: { maxRejections: 0 } });
  assert.equal(outcome.state.sponsor, undefined);
  const [gaveUp] = (await outbox(store)).filter((event) => event.type === "gave_up");
  assert.equal(gaveUp!.data.sponsor, undefined);
  assert.equal((await store.summaries()).runs[0]!.sponsor, undefined);
});

test("a sponsor that is not a person's name is refused with invalid_option", () => {
  const store = new MemoryStore();
  for (const sponsor of ["", "two words", "a".repeat(65), "bad\u0000", 7, null])
    assert.throws(
      () => failingAgent(store, store, sponsor as string),
      (error: unknown) => isLeashError(error, "invalid_option"),
      `refused: ${JSON.stringify(sponsor)}`,
    );
  assert.equal(failingAgent(store, store, "noor.k@example-1_x").constructor, Agent);
});
