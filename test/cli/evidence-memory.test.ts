import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, Decision, makeRecord, RunState, tool, type AuditHead } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { leash, tempFolder } from "./cli-helpers.js";
import { makeKeys } from "./evidence-helpers.js";

// A heap far smaller than the trail and its states: what reads them whole runs out of memory.
const SMALL_HEAP = { NODE_OPTIONS: "--max-old-space-size=48" };
const RUNS = 700;

/** A SQLite file of RUNS stored runs of about 100 records each, copies of one real run under new ids. */
async function bigStore(path: string): Promise<number> {
  const lookup = tool({
    name: "lookup",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    execute: ({ topic }: { topic: string }) => `a page about ${topic} `.repeat(20),
  });
  const agent = new Agent({
    tools: [lookup],
    planner: (state) =>
      state.steps.length < 32 ? Decision.act("lookup", { topic: `t${state.steps.length}` }) : Decision.finish("done"),
  });
  const template = await agent.run("Read thirty-two pages.", { runId: "template" });
  const records = await agent.audit.read("template");
  const store = new SqliteStore(path);
  for (let run = 0; run < RUNS; run++) {
    const runId = `run-${run}`;
    let head: AuditHead | null = null;
    const copies = records.map((record) => {
      const copy = makeRecord(runId, head, record.event, record.data, record.at);
      head = { seq: copy.seq, digest: copy.digest };
      return copy;
    });
    const state = RunState.fromJSON({ ...template.toJSON(), runId, auditHead: head!, revision: 0 });
    await store.create(state, { records: copies });
  }
  await store.close();
  return RUNS * records.length;
}

test("checkpoint and verify of a store read its trail and states a page at a time: a log far larger than a small heap signs and verifies in it", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const path = join(folder.path, "big.db");
  const records = await bigStore(path);
  assert.ok(records > 60_000);
  const { keyFile, verifierKey } = makeKeys(folder.path);
  const signed = leash(
    ["checkpoint", "--db", path, "--key-file", keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
    { cwd: folder.path, env: SMALL_HEAP },
  );
  assert.equal(signed.status, 0, signed.stderr);
  assert.match(signed.stdout, new RegExp(`^Signed the tree of ${records} records `));
  const verified = leash(["verify", "--db", path, "--checkpoint", "cp.note", "--key", verifierKey, "--json"], {
    cwd: folder.path,
    env: SMALL_HEAP,
  });
  assert.equal(verified.status, 0, verified.stderr);
  assert.deepEqual(JSON.parse(verified.stdout), []);
});
