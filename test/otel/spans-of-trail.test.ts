// A stored trail makes the same spans as the live run did: one mapping, two feeds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Approval, JsonlAuditSink, MemoryStore, readAudit } from "../../src/index.js";
import type { Agent, RunState } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { spansOfTrail, traceAgent } from "../../src/otel/index.js";
import { clerk, memoryTracer, named, one, shapeOf, tools } from "./otel-helpers.js";

function script() {
  return scriptedModel(
    { name: "Everyday", price: { input: 1, output: 5 } },
    says.tool("read", {}, { usage: { inputTokens: 2_000, outputTokens: 400, cacheReadTokens: 500 } }),
    says.tool("write", { text: "the report" }),
    says.tool("explode", {}),
    says.handBack("done", { usage: { inputTokens: 3_000, outputTokens: 100 } }),
  );
}

async function approveAndResume(agent: Agent, paused: RunState, digest: string) {
  return agent.resume(paused, { approvals: [new Approval(digest, { granted: true, approver: "allen" })] });
}

test("a JSONL trail read back makes the same spans, with the same times and attributes, as the live run", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-otel-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "audit.jsonl");
  const agent = clerk(script(), { audit: new JsonlAuditSink(path) });
  const live = memoryTracer();
  traceAgent(agent, { tracer: live.tracer, tools });
  const paused = await agent.run("file the report");
  await approveAndResume(agent, paused, paused.pending?.digest ?? "");

  const stored = memoryTracer();
  const made = spansOfTrail(readAudit(path), { tracer: stored.tracer, tools });
  assert.deepEqual(made, { runs: 1, records: readAudit(path).length });
  assert.equal(stored.spans().length, live.spans().length);
  assert.deepEqual(shapeOf(stored.spans()), shapeOf(live.spans()));
  const [, resumed] = named(stored.spans(), "invoke_agent Clerk");
  assert.deepEqual(resumed?.links[0]?.context, one(stored.spans(), "invoke_agent Clerk").spanContext());
});

test("interleaved runs of one store are each mapped in seq order, whatever order the records come in", async () => {
  const store = new MemoryStore();
  const first = clerk(script(), { store });
  const second = clerk(scriptedModel({ name: "Other" }, says.tool("read", {}), says.handBack("ok")), { store });
  const live = memoryTracer();
  traceAgent(first, { tracer: live.tracer, tools });
  traceAgent(second, { tracer: live.tracer, tools });
  const [paused] = await Promise.all([first.run("file the report"), second.run("read")]);
  await approveAndResume(first, paused, paused.pending?.digest ?? "");

  const stored = memoryTracer();
  const shuffled = [...store.records].reverse();
  assert.deepEqual(spansOfTrail(shuffled, { tracer: stored.tracer, tools }).runs, 2);
  assert.deepEqual(shapeOf(stored.spans()), shapeOf(live.spans()));
});

test("a run still going when its trail was read gets its open spans ended at its last record, marked incomplete", async () => {
  const store = new MemoryStore();
  const agent = clerk(script(), { store });
  await agent.run("file the report");
  const records = store.records.filter(
    (record) => record.event !== "run_paused" && record.event !== "approval_requested",
  );
  const { tracer, spans } = memoryTracer();
  spansOfTrail(records, { tracer });
  const run = one(spans(), "invoke_agent Clerk");
  assert.equal(run.attributes["leash.incomplete"], true);
  assert.equal(run.attributes["leash.record.seq"], records.at(-1)?.seq);
  assert.equal(one(spans(), "step 1").attributes["leash.incomplete"], true);
});

test("a resume by another agent over the same store is traced there as a stretch with the same leash.run_id", async () => {
  const store = new MemoryStore();
  const model = script();
  const starter = clerk(model, { store });
  const resumer = clerk(model, { store });
  const mine = memoryTracer();
  const theirs = memoryTracer();
  traceAgent(starter, { tracer: mine.tracer, tools });
  traceAgent(resumer, { tracer: theirs.tracer, tools });
  const paused = await starter.run("file the report");
  const done = await approveAndResume(resumer, paused, paused.pending?.digest ?? "");
  assert.equal(done.status, "completed");
  assert.deepEqual(
    mine
      .spans()
      .map((span) => span.name)
      .sort(),
    ["chat Everyday", "chat Everyday", "execute_tool read", "invoke_agent Clerk", "step 0", "step 1"],
  );
  const resumed = one(theirs.spans(), "invoke_agent Clerk");
  assert.equal(resumed.attributes["leash.run_id"], paused.runId);
  assert.equal(resumed.attributes["leash.resumed"], "approval");
  assert.equal(resumed.attributes["leash.outcome"], "completed");
  assert.equal(one(theirs.spans(), "execute_tool write").attributes["leash.effect"], "write");
  assert.deepEqual(
    named(theirs.spans(), "step 1").map((span) => span.attributes["leash.outcome"]),
    ["executed"],
  );
});
