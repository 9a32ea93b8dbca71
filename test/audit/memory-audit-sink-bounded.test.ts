import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Decision,
  MemoryAuditSink,
  Policy,
  isLeashError,
  keygen,
  tool,
  verifyAudit,
  type ApprovalRequest,
  type RunState,
} from "../../src/index.js";
import { evidenceLogOf } from "../../src/evidence/index.js";
import { saveTool, writerPlanner } from "../core/helpers.js";

const lookup = tool({
  name: "lookup",
  parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  execute: ({ topic }: { topic: string }) => `page about ${topic}`,
});

/** An agent with no store on `audit` whose runs take `steps` lookups, then finish. */
function lookupAgent(audit: MemoryAuditSink, steps: number): Agent {
  return new Agent({
    tools: [lookup],
    planner: (state) =>
      state.steps.length < steps
        ? Decision.act("lookup", { topic: `t${state.steps.length}` })
        : Decision.finish("done"),
    audit,
  });
}

/** An agent with no store whose runs save a report, pausing for approval. */
function writerAgent(audit: MemoryAuditSink, written: string[]): Agent {
  return new Agent({
    tools: [saveTool(written)],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    audit,
  });
}

const approve = (paused: RunState) =>
  new Approval((paused.pending as ApprovalRequest).digest, { granted: true, approver: "allen" });

for (const keepEnded of [0, 1, 4, 7]) {
  test(`a sink with keepEnded ${keepEnded} holds the runs still going and the last ${keepEnded} ended, however many runs end`, async () => {
    const sink = new MemoryAuditSink({ keepEnded });
    const written: string[] = [];
    const paused = await writerAgent(sink, written).run("save the report", { runId: "paused" });
    assert.equal(paused.status, "awaiting_approval");
    const agent = lookupAgent(sink, 5);
    const ended: string[] = [];
    for (let run = 0; run < 40; run++) {
      const state = await agent.run(`goal ${run}`, { runId: `run-${run}` });
      assert.equal(state.status, "completed");
      ended.push(state.runId);
      const held = new Set(sink.records.map((record) => record.run));
      const expected = new Set(["paused", ...ended.slice(Math.max(0, ended.length - keepEnded))]);
      assert.deepEqual([...held].sort(), [...expected].sort());
    }
    const pausedRecords = (await sink.read("paused")).length;
    assert.ok(pausedRecords > 0);
    for (const runId of ended.slice(0, ended.length - keepEnded)) assert.deepEqual(await sink.read(runId), []);
    assert.deepEqual(verifyAudit(sink.records), []);
    assert.deepEqual(await sink.read(), sink.records);
    // The run still going was kept whole: it resumes as ever.
    const done = await writerAgent(sink, written).resume(paused, { approvals: [approve(paused)] });
    assert.equal(done.status, "completed");
    assert.deepEqual(written, ["the report"]);
  });
}

test("a sink with keepEnded stays bounded in records after many runs, where the default holds them all", async () => {
  const bounded = new MemoryAuditSink({ keepEnded: 10 });
  const unbounded = new MemoryAuditSink();
  const boundedAgent = lookupAgent(bounded, 20);
  const unboundedAgent = lookupAgent(unbounded, 20);
  let most = 0;
  for (let run = 0; run < 60; run++) {
    await boundedAgent.run(`goal ${run}`);
    await unboundedAgent.run(`goal ${run}`);
    most = Math.max(most, bounded.records.length);
  }
  const perRun = unbounded.records.length / 60;
  assert.equal(most, perRun * 10);
  assert.equal(bounded.records.length, perRun * 10);
  assert.equal(unbounded.records.length, perRun * 60);
});

test("a sink with keepEnded still refuses a reused id and a replayed resume of the runs it keeps", async () => {
  const sink = new MemoryAuditSink({ keepEnded: 2 });
  const written: string[] = [];
  const writer = writerAgent(sink, written);
  const paused = await writer.run("save the report", { runId: "kept" });
  const done = await writer.resume(paused, { approvals: [approve(paused)] });
  assert.equal(done.status, "completed");
  // The paused copy again: the trail still holds the run, and says it was resumed.
  await assert.rejects(writer.resume(paused, { approvals: [approve(paused)] }), (error) =>
    isLeashError(error, "already_resumed"),
  );
  await assert.rejects(writer.run("save it again", { runId: "kept" }), (error) => isLeashError(error, "run_exists"));
  assert.deepEqual(written, ["the report"]);
});

test("a sink with keepEnded refuses a replayed resume of a run it forgot as unknown, and takes its id again", async () => {
  const sink = new MemoryAuditSink({ keepEnded: 1 });
  const written: string[] = [];
  const writer = writerAgent(sink, written);
  const paused = await writer.run("save the report", { runId: "forgotten" });
  await writer.resume(paused, { approvals: [approve(paused)] });
  await lookupAgent(sink, 1).run("something else", { runId: "newer" });
  assert.deepEqual(await sink.read("forgotten"), []);
  const before = sink.records;
  await assert.rejects(writer.resume(paused, { approvals: [approve(paused)] }), (error) =>
    isLeashError(error, "run_not_found"),
  );
  assert.deepEqual(written, ["the report"], "the approved action ran once");
  assert.deepEqual(sink.records, before, "nothing was written");
  // The weaker guarantee: the id of a forgotten run can be used again.
  const again = await lookupAgent(sink, 1).run("a new run under an old id", { runId: "forgotten" });
  assert.equal(again.status, "completed");
});

test("a sink with keepEnded refuses a record past seq 0 of a run it holds nothing of, writing nothing", async () => {
  const source = new MemoryAuditSink();
  await lookupAgent(source, 2).run("a goal", { runId: "elsewhere" });
  const [first, second] = source.records;
  const sink = new MemoryAuditSink({ keepEnded: 5 });
  assert.throws(
    () => sink.append([second!]),
    (error) => isLeashError(error, "run_not_found"),
  );
  assert.deepEqual(sink.records, []);
  sink.append([first!, second!]);
  assert.equal(sink.records.length, 2);
  // The default sink still takes the rest of a trail whose start is kept elsewhere.
  const open = new MemoryAuditSink();
  open.append([second!]);
  assert.equal(open.records.length, 1);
});

test("MemoryAuditSink refuses a keepEnded that is not a whole number, 0 or more, and unknown keys, with invalid_option", () => {
  const bad: unknown[] = [-1, 1.5, "3", Number.NaN, Number.POSITIVE_INFINITY, null, 2 ** 53, true, {}];
  for (const keepEnded of bad) {
    assert.throws(
      () => new MemoryAuditSink({ keepEnded } as never),
      (error) => isLeashError(error, "invalid_option") && /keepEnded/.test(error.message),
      String(keepEnded),
    );
  }
  for (const options of [null, 3, "keepEnded", { keepEnded: 1, keep: 2 }, { keepended: 1 }]) {
    assert.throws(
      () => new MemoryAuditSink(options as never),
      (error) => isLeashError(error, "invalid_option"),
    );
  }
  assert.equal(new MemoryAuditSink({ keepEnded: 0 }).keepEnded, 0);
  assert.equal(new MemoryAuditSink().keepEnded, undefined);
  assert.equal(new MemoryAuditSink({}).keepEnded, undefined);
});

test("a sink with keepEnded keeps no Merkle log: an evidence log or automatic checkpoints of it are refused", () => {
  const sink = new MemoryAuditSink({ keepEnded: 3 });
  assert.throws(
    () => evidenceLogOf(sink),
    (error) => isLeashError(error, "invalid_option"),
  );
  const { signerKey } = keygen("example.com/leash");
  assert.throws(
    () =>
      new Agent({
        tools: [lookup],
        planner: () => Decision.finish("done"),
        audit: sink,
        checkpoint: { key: signerKey, origin: "example.com/leash" },
      }),
    (error) => isLeashError(error, "invalid_option"),
  );
});
