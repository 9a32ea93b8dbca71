// Runs traced where they go on: a worker over another connection to the store resumes a run paused
// elsewhere, and a trail with a stretch cut short by a crash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpanStatusCode } from "@opentelemetry/api";
import { Approval, MemoryStore, makeRecord } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { Worker } from "../../src/worker/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { spansOfTrail, traceAgent } from "../../src/otel/index.js";
import { clerk, memoryTracer, named, one, parentOf, recordAt, tickingClock, tools } from "./otel-helpers.js";

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function script() {
  return scriptedModel(
    { name: "Everyday" },
    says.tool("read", {}),
    says.tool("write", { text: "the report" }),
    says.handBack("done"),
  );
}

test("a worker's agent traces the resume of a run paused by another agent on another connection", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-otel-worker-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "runs.db");
  const starting = new SqliteStore(path);
  const working = new SqliteStore(path);
  t.after(async () => {
    await starting.close();
    await working.close();
  });
  const model = script();
  const paused = await clerk(model, { store: starting }).run("file the report");
  await starting.answer(paused.runId, Approval.grant(paused.pending?.digest ?? "", "allen"));

  const agent = clerk(model, { store: working, clock: tickingClock(Date.parse("2026-01-05T10:00:00.000Z")) });
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer, tools });
  const worker = new Worker({ agent, store: working, logger: silent, pollMs: 10 });
  assert.equal(await worker.runOnce(), 1);
  await worker.stop();

  const run = one(spans(), "invoke_agent Clerk");
  assert.equal(run.attributes["leash.run_id"], paused.runId);
  assert.equal(run.attributes["leash.resumed"], "approval");
  assert.equal(run.attributes["leash.outcome"], "completed");
  const write = one(spans(), "execute_tool write");
  assert.equal(parentOf(spans(), write)?.name, "step 1");
  assert.equal(write.attributes["leash.effect"], "write");
  const trail = await working.read(paused.runId);
  for (const span of spans()) {
    const record = recordAt(trail, paused.runId, span.attributes["leash.record.seq"]);
    assert.equal(span.attributes["leash.record.digest"], record?.digest, span.name);
  }

  // The answer was recorded by the other connection's store, so it is not on this agent's feed; the
  // trail holds it, and its spans put it on the step it answered.
  assert.equal(write.attributes["leash.approval.digest"], undefined);
  const stored = memoryTracer();
  spansOfTrail(trail, { tracer: stored.tracer, tools });
  const [first] = named(stored.spans(), "invoke_agent Clerk");
  assert.equal(first?.attributes["leash.paused"], true);
  const continued = one(stored.spans(), "step 1", 1);
  const answered = continued.events.find((event) => event.name === "approval_answered");
  assert.equal(answered?.attributes?.["leash.approval.approver"], "allen");
  assert.equal(continued.attributes["leash.approval.digest"], paused.pending?.digest);
  assert.equal(one(stored.spans(), "execute_tool write").attributes["leash.approval.digest"], paused.pending?.digest);
});

test("a stretch a crash cut short ends at its last record, marked interrupted, and the recovery is a stretch of its own", async () => {
  const store = new MemoryStore();
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {}), says.handBack("ok")), { store });
  await agent.run("read");
  const started = store.records.findIndex((record) => record.event === "tool_started");
  const cut = store.records.slice(0, started + 1);
  const last = cut.at(-1)!;
  const recovery = makeRecord(
    last.run,
    last,
    "run_resumed",
    { reason: "recovery", step: 0 },
    "2026-01-05T10:00:00.000Z",
  );
  const { tracer, spans } = memoryTracer();
  spansOfTrail([...cut, recovery], { tracer });
  const [crashed, recovered] = named(spans(), "invoke_agent Clerk");
  assert.equal(crashed?.attributes["leash.outcome"], "interrupted");
  assert.equal(crashed?.attributes["leash.incomplete"], true);
  assert.equal(crashed?.attributes["leash.record.seq"], last.seq);
  assert.equal(recovered?.attributes["leash.resumed"], "recovery");
  const tool = one(spans(), "execute_tool read");
  assert.equal(tool.attributes["leash.incomplete"], true);
  assert.equal(tool.status.code, SpanStatusCode.UNSET);
  assert.equal(recovered?.links.length, 1);
});
