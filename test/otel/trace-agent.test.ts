// A run traced live: the span tree, its names, attributes, times and statuses, each pointing back
// into the audit trail by the seq and digest of the record that ended it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { Approval, MemoryStore, verifyAudit } from "../../src/index.js";
import type { AuditRecord } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { traceAgent } from "../../src/otel/index.js";
import { clerk, memoryTracer, ms, named, one, parentOf, recordAt, tools } from "./otel-helpers.js";

/** Reads, asks to write (paused, approved, resumed), fails a tool, hands back: every kind of span. */
async function tracedRun() {
  const model = scriptedModel(
    { name: "Everyday", price: { input: 1, output: 5, cacheRead: 0.1 } },
    says.tool("read", {}, { usage: { inputTokens: 2_000, outputTokens: 400, cacheReadTokens: 500 } }),
    says.tool("write", { text: "the report" }),
    says.tool("explode", {}),
    says.handBack("done", { usage: { inputTokens: 3_000, outputTokens: 100 } }),
  );
  const store = new MemoryStore();
  const agent = clerk(model, { store });
  const { tracer, spans } = memoryTracer();
  const stop = traceAgent(agent, { tracer, tools });
  const paused = await agent.run("file the report");
  const digest = paused.pending?.digest ?? "";
  const done = await agent.resume(paused.runId, {
    approvals: [new Approval(digest, { granted: true, approver: "allen" })],
  });
  stop();
  assert.equal(done.status, "completed");
  const records = store.records.filter((record) => record.run === done.runId);
  assert.deepEqual(verifyAudit(records), []);
  return { spans: spans(), records, runId: done.runId, digest };
}

test("a paused and resumed run is two run spans, its steps their children, model and tool calls the steps' children", async () => {
  const { spans } = await tracedRun();
  const runs = named(spans, "invoke_agent Clerk");
  assert.equal(runs.length, 2);
  const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
  assert.equal(first.parentSpanContext, undefined);
  assert.deepEqual(second.links[0]?.context, first.spanContext(), "the resumed stretch links to the first");
  assert.equal(first.attributes["leash.run_id"], second.attributes["leash.run_id"]);

  const stepsOf = (run: typeof first) => spans.filter((span) => parentOf(spans, span) === run).map((s) => s.name);
  assert.deepEqual(stepsOf(first).sort(), ["step 0", "step 1"]);
  assert.deepEqual(stepsOf(second).sort(), ["step 1", "step 2", "step 3"]);

  const childrenOf = (name: string, index = 0) =>
    spans
      .filter((span) => parentOf(spans, span) === one(spans, name, index))
      .map((span) => span.name)
      .sort();
  assert.deepEqual(childrenOf("step 0"), ["chat Everyday", "execute_tool read"]);
  assert.deepEqual(childrenOf("step 1", 0), ["chat Everyday"], "the paused stretch asked, the tool did not run");
  assert.deepEqual(childrenOf("step 1", 1), ["execute_tool write"]);
  assert.deepEqual(childrenOf("step 2"), ["chat Everyday", "execute_tool explode"]);
  assert.deepEqual(childrenOf("step 3"), ["chat Everyday"]);
  assert.equal(spans.length, 2 + 5 + 4 + 3);
  assert.ok(spans.every((span) => span.ended));
});

test("spans carry the GenAI attributes: operation, agent, model, token usage with cache reads, tool name and call id", async () => {
  const { spans, runId } = await tracedRun();
  const run = one(spans, "invoke_agent Clerk");
  assert.equal(run.attributes["gen_ai.operation.name"], "invoke_agent");
  assert.equal(run.attributes["gen_ai.agent.name"], "Clerk");
  assert.equal(run.attributes["gen_ai.conversation.id"], runId);

  const chat = one(spans, "chat Everyday");
  assert.equal(chat.kind, SpanKind.CLIENT);
  assert.equal(chat.attributes["gen_ai.operation.name"], "chat");
  assert.equal(chat.attributes["gen_ai.request.model"], "Everyday");
  assert.equal(chat.attributes["gen_ai.usage.input_tokens"], 2_000);
  assert.equal(chat.attributes["gen_ai.usage.output_tokens"], 400);
  assert.equal(chat.attributes["gen_ai.usage.cache_read.input_tokens"], 500);
  assert.ok(Math.abs(Number(chat.attributes["leash.cost"]) - (1_500 * 1 + 500 * 0.1 + 400 * 5) / 1e6) < 1e-12);
  assert.equal(chat.attributes["leash.step"], 0);

  const tool = one(spans, "execute_tool read");
  assert.equal(tool.kind, SpanKind.INTERNAL);
  assert.equal(tool.attributes["gen_ai.operation.name"], "execute_tool");
  assert.equal(tool.attributes["gen_ai.tool.name"], "read");
  assert.equal(tool.attributes["gen_ai.tool.call.id"], "call_1");
  assert.equal(tool.attributes["leash.effect"], "read");
  assert.equal(tool.attributes["leash.outcome"], "executed");
  assert.equal(one(spans, "execute_tool write").attributes["gen_ai.tool.call.id"], "call_2");
});

test("leash's attributes: outcome, effect, approval digest, step, and a pause that ends the first stretch", async () => {
  const { spans, digest } = await tracedRun();
  const [first, second] = named(spans, "invoke_agent Clerk");
  assert.equal(first?.attributes["leash.paused"], true);
  assert.equal(first?.attributes["leash.outcome"], "awaiting_approval");
  assert.equal(first?.attributes["leash.approval.digest"], digest);
  assert.equal(second?.attributes["leash.resumed"], "approval");
  assert.equal(second?.attributes["leash.outcome"], "completed");
  assert.ok(Number(second?.attributes["leash.cost"]) > 0);

  const asked = one(spans, "step 1", 0);
  assert.equal(asked.attributes["leash.paused"], true);
  assert.equal(asked.attributes["leash.approval.digest"], digest);
  assert.deepEqual(
    asked.events.map((event) => event.name),
    ["approval_requested"],
  );
  const ran = one(spans, "step 1", 1);
  assert.equal(ran.attributes["leash.outcome"], "executed");
  assert.equal(ran.attributes["leash.effect"], "write");
  assert.equal(ran.attributes["gen_ai.tool.name"], "write", "the continuation carries the step's decision");
  assert.equal(
    ran.events.find((event) => event.name === "approval_answered")?.attributes?.["leash.approval.approver"],
    "allen",
  );
  const write = one(spans, "execute_tool write");
  assert.equal(write.attributes["leash.approval.digest"], digest);
  assert.equal(write.attributes["leash.effect"], "write");
  assert.equal(one(spans, "step 3").attributes["leash.outcome"], "finished");
});

test("every span's record seq and digest are those of a record in the trail, the one that ended it", async () => {
  const { spans, records, runId } = await tracedRun();
  for (const span of spans) {
    const record = recordAt(records, runId, span.attributes["leash.record.seq"]);
    assert.ok(record !== undefined, `${span.name} names a record of the trail`);
    assert.equal(span.attributes["leash.record.digest"], record.digest, span.name);
    assert.equal(ms(span.endTime), Date.parse(record.at), `${span.name} ends at its record's time`);
    const firstSeq = span.attributes["leash.record.first_seq"];
    if (firstSeq !== undefined) assert.ok(Number(firstSeq) <= record.seq);
  }
  const endOf = (name: string, index = 0) => one(spans, name, index).attributes["leash.record.seq"];
  const seqOf = (event: string, nth = 0) => records.filter((record) => record.event === event)[nth]?.seq;
  assert.equal(endOf("invoke_agent Clerk", 0), seqOf("run_paused"));
  assert.equal(endOf("invoke_agent Clerk", 1), seqOf("run_ended"));
  assert.equal(endOf("execute_tool read"), seqOf("tool_ended", 0));
  assert.equal(endOf("chat Everyday", 3), seqOf("model_called", 3));
  assert.equal(endOf("step 3"), seqOf("run_ended"), "a hand-back's step ends with the run's end");
});

test("times come from the records: children sit inside their parents and the stretches follow each other", async () => {
  const { spans, records } = await tracedRun();
  const at = (event: string, nth = 0) =>
    Date.parse((records.filter((record) => record.event === event)[nth] as AuditRecord).at);
  for (const span of spans) {
    assert.ok(ms(span.startTime) <= ms(span.endTime), span.name);
    const parent = parentOf(spans, span);
    if (parent === undefined) continue;
    assert.ok(ms(parent.startTime) <= ms(span.startTime), `${span.name} starts inside ${parent.name}`);
    assert.ok(ms(span.endTime) <= ms(parent.endTime), `${span.name} ends inside ${parent.name}`);
  }
  const [first, second] = named(spans, "invoke_agent Clerk");
  assert.equal(ms(first?.startTime ?? [0, 0]), at("run_started"));
  assert.equal(ms(second?.startTime ?? [0, 0]), at("run_resumed"));
  assert.ok(ms(first?.endTime ?? [0, 0]) < ms(second?.startTime ?? [0, 0]));
  const tool = one(spans, "execute_tool explode");
  assert.equal(ms(tool.startTime), at("tool_started", 2));
  assert.equal(ms(tool.endTime), at("tool_ended", 2));
  // A model call starts where the run's record before it was made: the trail's first sight of it.
  const chat = one(spans, "chat Everyday");
  assert.equal(ms(chat.startTime), at("run_started"));
  assert.equal(ms(chat.endTime), at("model_called"));
});

test("a failing tool ends its tool and step spans with status ERROR and the error code", async () => {
  const { spans } = await tracedRun();
  for (const span of [one(spans, "execute_tool explode"), one(spans, "step 2")]) {
    assert.equal(span.status.code, SpanStatusCode.ERROR, span.name);
    assert.equal(span.attributes["error.type"], "tool_error");
    assert.equal(span.attributes["leash.outcome"], "tool_error");
    assert.match(String(span.status.message), /the disk is on fire/);
  }
  const fine = spans.filter((span) => !["execute_tool explode", "step 2"].includes(span.name));
  assert.ok(fine.every((span) => span.status.code === SpanStatusCode.UNSET));
});
