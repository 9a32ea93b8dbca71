// Automatic checkpoints: an agent told to checkpoint every N records or at each run's end signs and
// stores checkpoints of its store's log that the spec checker verifies, each consistent with the
// next; a checkpoint that fails is reported and never fails the run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  Agent,
  Decision,
  MemoryStore,
  signCheckpoint,
  tool,
  verifyCheckpoint,
  type AgentOptions,
  type AuditSink,
  type CheckpointFailedEvent,
  type RunStore,
} from "../../src/index.js";
import { evidenceLogOf } from "../../src/evidence/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { temporaryDirectory } from "../audit/audit-test-helpers.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { specCheckpoint, specOpenNote, specVerifyConsistency } from "./spec-checker.js";
import { origin, signerKey, verifierKey } from "./store-log-suite.js";

const directory = temporaryDirectory();

const lookup = tool({
  name: "lookup",
  parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  execute: ({ topic }: { topic: string }) => `page about ${topic}`,
});

/** An agent whose runs take three lookups and then answer, on `store` as store and sink. */
function agentOn(store: RunStore & AuditSink, checkpoint: AgentOptions["checkpoint"]): Agent {
  return new Agent({
    tools: [lookup],
    planner: (state) =>
      state.steps.length < 3 ? Decision.act("lookup", { topic: `t${state.steps.length}` }) : Decision.finish("done"),
    store,
    audit: store,
    checkpoint,
  });
}

/** Checks every stored checkpoint with the spec checker, each consistent with the next, and with verifyCheckpoint. */
async function checkStoredCheckpoints(store: RunStore & AuditSink): Promise<number[]> {
  const log = evidenceLogOf(store as SqliteStore);
  const stored = await log.checkpoints();
  const checkpoints = stored.map(({ note }) => specCheckpoint(specOpenNote(note, verifierKey)!));
  for (let index = 1; index < checkpoints.length; index++) {
    const [older, newer] = [checkpoints[index - 1]!, checkpoints[index]!];
    const proof = await log.consistencyProof(older.size, newer.size);
    assert.ok(
      specVerifyConsistency(older.size, newer.size, older.root, newer.root, proof),
      `${older.size} → ${newer.size}`,
    );
  }
  for (const { note } of stored)
    assert.deepEqual(await verifyCheckpoint(store as SqliteStore, note, { key: verifierKey }), []);
  return checkpoints.map((checkpoint) => checkpoint.size);
}

test("an agent told to checkpoint at each run's end stores one checkpoint per run, of the whole log at its end", async () => {
  const store = new SqliteStore(join(directory, "run-end.db"));
  try {
    const agent = agentOn(store, { key: signerKey, origin });
    for (let run = 0; run < 3; run++) assert.equal((await agent.run(`goal ${run}`)).status, "completed");
    const sizes = await checkStoredCheckpoints(store);
    assert.equal(sizes.length, 3);
    assert.equal(sizes.at(-1), store.records.length);
    assert.equal(sizes[0]! * 3, sizes[2]);
  } finally {
    await store.close();
  }
});

test("an agent told to checkpoint every 4 records stores a checkpoint each time 4 more are written", async () => {
  const store = new SqliteStore(join(directory, "every.db"));
  try {
    const agent = agentOn(store, { key: signerKey, origin, every: 4 });
    await agent.run("goal");
    await agent.run("another goal");
    const sizes = await checkStoredCheckpoints(store);
    const records = store.records.length;
    assert.ok(
      sizes.length >= Math.floor(records / 4) - 1 && sizes.length <= Math.ceil(records / 4),
      `${sizes.join(", ")} of ${records}`,
    );
    assert.ok(sizes.every((size, index) => index === 0 || size > sizes[index - 1]!));
  } finally {
    await store.close();
  }
});

test("a checkpoint that fails is reported as checkpoint_failed and the run still completes", async () => {
  const path = join(directory, "failing.db");
  const store = new SqliteStore(path);
  try {
    await agentOn(store, undefined).run("first, without checkpoints");
    // Someone rewrites a record behind the store's back: its chain no longer verifies, so nothing may be signed.
    const database = new Database(path);
    database.exec(`UPDATE audit SET record = replace(record, '"at":"2', '"at":"1') WHERE seq = 1`);
    database.close();
    const agent = agentOn(store, { key: signerKey, origin });
    const failures: CheckpointFailedEvent[] = [];
    agent.on("checkpoint_failed", (event) => failures.push(event));
    const second = await agent.run("second");
    assert.equal(second.status, "completed");
    assert.deepEqual(
      failures.map((failure) => failure.code),
      ["audit_invalid"],
    );
    assert.deepEqual(await evidenceLogOf(store).checkpoints(), []);
  } finally {
    await store.close();
  }
});

test("the checkpoint option is checked when the agent is built: a sink without a log, a bad key, a bad count", () => {
  const store = new MemoryStore();
  const sink = { append: () => undefined, read: () => Promise.resolve([]) };
  const build = (options: Partial<AgentOptions>): Agent =>
    new Agent({ tools: [lookup], planner: () => Decision.finish("x"), store, ...options });
  assert.throws(() => build({ audit: sink, checkpoint: { key: signerKey, origin } }), { code: "invalid_option" });
  assert.throws(() => build({ checkpoint: { key: "not a key", origin } }), { code: "invalid_key" });
  assert.throws(() => build({ checkpoint: { key: signerKey, origin, every: 0 } }), { code: "invalid_option" });
  assert.throws(() => build({ checkpoint: { key: signerKey, origin: "" } }), { code: "invalid_option" });
});

test("the checkpoint option refuses at construction (invalid_option) every origin signCheckpoint refuses: a tab, a control character, a lone surrogate", async () => {
  const store = new SqliteStore(join(directory, `origin-${process.pid}.db`));
  try {
    for (const bad of ["example.com/\tlog", "example.com/\u0001", "example.com/\ud800", "a\nb", ""]) {
      assert.throws(
        () =>
          new Agent({
            tools: [lookup],
            planner: () => Decision.finish("x"),
            store,
            checkpoint: { key: signerKey, origin: bad },
          }),
        { code: "invalid_option" },
        JSON.stringify(bad),
      );
      await assert.rejects(signCheckpoint(store, { key: signerKey, origin: bad }), { code: "invalid_option" });
    }
    assert.deepEqual(await evidenceLogOf(store).checkpoints(), []);
  } finally {
    await store.close();
  }
});

test("a MemoryStore keeps its log and checkpoints in memory, as the SQL stores do in tables", async () => {
  const store = new MemoryStore();
  const agent = agentOn(store, { key: signerKey, origin, atRunEnd: true });
  await agent.run("one");
  await agent.run("two");
  assert.deepEqual((await checkStoredCheckpoints(store)).length, 2);
});

withPostgres("automatic checkpoints on PostgreSQL", (url) => {
  test("an agent on PostgreSQL checkpoints at each run's end, each checkpoint consistent with the next", async () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ connectionString: url, schema });
    try {
      const agent = agentOn(store, { key: signerKey, origin, atRunEnd: true });
      await Promise.all([agent.run("one"), agent.run("two"), agent.run("three")]);
      // Three runs end at nearly the same moment: a checkpoint of a size stored already (the same
      // note) is not stored twice, so there are one to three of them, the last of the whole log.
      const sizes = await checkStoredCheckpoints(store);
      assert.ok(sizes.length >= 1 && sizes.length <= 3, String(sizes));
      assert.equal(sizes.at(-1), (await store.read()).length);
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });
});
