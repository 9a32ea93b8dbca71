// Real crashes with a sink separate from the store (a SQLite file for states, a JSONL file for the
// trail): a child process kills itself with SIGKILL once a call's `tool_started` is in the trail and
// before the state that records the start is saved. Recovery continues from the trail's record:
// the start that never ran is either the one that runs now (an idempotent call) or withdrawn in so
// many words (a non-idempotent one); a second start is never written for the step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlAuditSink, verifyAudit } from "../../src/index.js";
import type { AuditRecord, RunState } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { readEffects, storeAgent } from "../fixtures/stores/store-agent.js";
import type { ToolKind } from "../fixtures/stores/store-agent.js";
import { startFixture } from "./fixture-process.js";

/** Runs the child until it kills itself between the trail's write and the state's save. */
async function crashAfterStart(tool: ToolKind, runId: string) {
  const directory = mkdtempSync(join(tmpdir(), "leash-sink-crash-"));
  const database = join(directory, "runs.db");
  const trail = join(directory, "trail.jsonl");
  const effects = join(directory, "effects.jsonl");
  const child = startFixture("stores/sink-crash-child.ts", [database, trail, tool, runId, effects]);
  assert.equal(await child.exited, "SIGKILL", child.stderr());
  const store = new SqliteStore(database);
  const sink = new JsonlAuditSink(trail);
  const saved = (await store.load(runId)) as RunState;
  const records = await sink.read(runId);
  // The crash landed where it should: the trail holds a start that the saved state does not.
  assert.equal(saved.status, "running");
  assert.ok(records.at(-1)!.seq > (saved.auditHead?.seq ?? -1));
  assert.equal(records.at(-1)?.event, "tool_started");
  assert.equal(readEffects(effects).length, 0, "the call never ran before the crash");
  const agent = storeAgent({ store, audit: sink, tool, effectsFile: effects, approve: true });
  const cleanup = async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  };
  return { store, sink, effects, agent, cleanup };
}

function events(records: AuditRecord[], event: string): AuditRecord[] {
  return records.filter((record) => record.event === event);
}

/** The trail verifies, and the stored state points at its last record. */
async function assertAgrees(store: SqliteStore, sink: JsonlAuditSink, state: RunState): Promise<AuditRecord[]> {
  const records = await sink.read(state.runId);
  assert.deepEqual(verifyAudit(records), []);
  assert.deepEqual(state.auditHead, { seq: records.at(-1)?.seq, digest: records.at(-1)?.digest });
  assert.deepEqual((await store.load(state.runId))?.toJSON(), state.toJSON());
  return records;
}

test("an idempotent call whose start reached a separate trail but not the state runs once, under that one start", async () => {
  const crashed = await crashAfterStart("read", "sink-read");
  try {
    const state = await crashed.agent.resume("sink-read");
    assert.equal(state.status, "completed");
    assert.equal(state.steps.length, 2);
    assert.equal(state.steps[0]?.outcome, "executed");
    assert.equal(state.steps[0]?.starts, 1);
    assert.equal(state.toolCalls, 1);
    assert.equal(readEffects(crashed.effects).length, 1, "the call ran once in all");
    const records = await assertAgrees(crashed.store, crashed.sink, state);
    assert.equal(events(records, "tool_started").length, 1, "one start, the one that ran");
    assert.equal(events(records, "tool_ended").length, 1);
    assert.equal(events(records, "decision_made").length, 2, "the planner was not asked the first step again");
    assert.equal((events(records, "tool_ended")[0]?.data as { outcome: string }).outcome, "executed");
  } finally {
    await crashed.cleanup();
  }
});

test("a non-idempotent call whose start reached a separate trail but not the state is withdrawn, said so, and never run", async () => {
  const crashed = await crashAfterStart("write", "sink-write");
  try {
    const state = await crashed.agent.resume("sink-write");
    assert.equal(readEffects(crashed.effects).length, 0, "the write never ran");
    assert.equal(state.steps[0]?.outcome, "stopped");
    assert.equal(state.steps[0]?.error?.code, "withdrawn");
    assert.match(state.steps[0]?.error?.message ?? "", /never ran/);
    assert.equal(state.toolCalls, 0);
    // The planner was told and went on: this one answers with the first step's outcome.
    assert.equal(state.status, "completed");
    assert.equal(state.answer, "stopped");
    const records = await assertAgrees(crashed.store, crashed.sink, state);
    assert.equal(events(records, "tool_started").length, 1);
    const ended = events(records, "tool_ended");
    assert.equal(ended.length, 1);
    assert.deepEqual((ended[0]?.data as { outcome: string; error: { code: string } }).error.code, "withdrawn");
    assert.equal((ended[0]?.data as { outcome: string }).outcome, "stopped");
  } finally {
    await crashed.cleanup();
  }
});

test("a cancel of a run whose start reached a separate trail but not the state withdraws that start and stops the run", async () => {
  const crashed = await crashAfterStart("read", "sink-cancel");
  try {
    const state = await crashed.agent.cancel("sink-cancel");
    assert.equal(state.status, "stopped");
    assert.equal(state.stopReason, "cancelled");
    assert.equal(state.steps[0]?.outcome, "stopped");
    assert.equal(state.toolCalls, 0);
    assert.equal(readEffects(crashed.effects).length, 0);
    const records = await assertAgrees(crashed.store, crashed.sink, state);
    assert.equal(events(records, "tool_started").length, 1);
    assert.equal(events(records, "tool_ended").length, 1);
  } finally {
    await crashed.cleanup();
  }
});
