import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  Agent,
  Decision,
  MemoryStore,
  RunState,
  keygen,
  signCheckpoint,
  tool,
  verifyCheckpoint,
} from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const origin = "example.com/leash";
const RUNS = 1_234;

test("verifyCheckpoint checks every stored run's state, a page of runs at a time: each unreadable state and each mismatch is named once, wherever it lies", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-paged-states-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "runs.db");
  const store = new SqliteStore(path);
  const lookup = tool({ name: "lookup", execute: () => "a page" });
  const agent = new Agent({
    tools: [lookup],
    planner: (state) => (state.steps.length === 0 ? Decision.act("lookup", {}) : Decision.finish("done")),
    store,
    audit: store,
  });
  for (let run = 0; run < RUNS; run++) await agent.run(`goal ${run}`, { runId: `run-${String(run).padStart(5, "0")}` });
  const { signerKey, verifierKey } = keygen(origin);
  const note = await signCheckpoint(store, { key: signerKey, origin });
  assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
  await store.close();
  // Unreadable states at the edges of where pages may fall, and one state that says another answer.
  const unreadable = [0, 1, 499, 500, 501, 999, 1000, RUNS - 1].map((run) => `run-${String(run).padStart(5, "0")}`);
  const database = new Database(path);
  const spoil = database.prepare("UPDATE runs SET state = '{\"version\": 99}' WHERE run_id = ?");
  for (const runId of unreadable) spoil.run(runId);
  const changed = "run-00777";
  const row = database.prepare("SELECT state FROM runs WHERE run_id = ?").get(changed) as { state: string };
  database
    .prepare("UPDATE runs SET state = ? WHERE run_id = ?")
    .run(row.state.replace('"answer":"done"', '"answer":"something else"'), changed);
  database.close();
  const reopened = new SqliteStore(path);
  t.after(() => reopened.close());
  const problems = await verifyCheckpoint(reopened, note, { key: verifierKey });
  assert.ok(problems.every((problem) => problem.problem === "state_mismatch"));
  const unreadableRuns = problems.filter((problem) => problem.field === "state").map((problem) => problem.run);
  assert.deepEqual(unreadableRuns.sort(), unreadable);
  const mismatched = problems.filter((problem) => problem.field !== "state");
  assert.ok(mismatched.length > 0);
  assert.ok(mismatched.every((problem) => problem.run === changed));
});

test("verifyCheckpoint pages the states of a store whose log lists no run ids (MemoryStore) and names each mismatch once, on both sides of a page's edge", async () => {
  const store = new MemoryStore();
  const lookup = tool({ name: "lookup", execute: () => "a page" });
  const agent = new Agent({
    tools: [lookup],
    planner: (state) => (state.steps.length === 0 ? Decision.act("lookup", {}) : Decision.finish("done")),
    store,
  });
  const runs = 1_001;
  const runIdOf = (run: number): string => `run-${String(run).padStart(5, "0")}`;
  for (let run = 0; run < runs; run++) await agent.run(`goal ${run}`, { runId: runIdOf(run) });
  const { signerKey, verifierKey } = keygen(origin);
  const note = await signCheckpoint(store, { key: signerKey, origin });
  assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
  // A state saved without its records, saying another answer: the trail does not back it.
  const changed = [0, 499, 500, runs - 1].map(runIdOf);
  for (const runId of changed) {
    const json = (await store.load(runId))!.toJSON();
    await store.save(RunState.fromJSON({ ...json, answer: "something else", revision: json.revision + 1 }), {
      expectedRevision: json.revision,
    });
  }
  const problems = await verifyCheckpoint(store, note, { key: verifierKey });
  assert.ok(problems.length > 0);
  assert.ok(problems.every((problem) => problem.problem === "state_mismatch"));
  assert.deepEqual([...new Set(problems.map((problem) => problem.run))].sort(), changed);
});
