// Runs that are refused or fail: which spans say ERROR, and which carry an outcome without one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanStatusCode } from "@opentelemetry/api";
import { Approval, allow, block } from "../../src/index.js";
import type { Guard, ModelClient } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { traceAgent } from "../../src/otel/index.js";
import { clerk, memoryTracer, named, one, parentOf } from "./otel-helpers.js";

test("a guard that blocks a tool call ends the step with status ERROR, code blocked, and no tool span", async () => {
  const guard: Guard = {
    name: "Shop rules",
    beforeTool: (_work, tool) => (tool.name === "read" ? block("No reading today.") : allow()),
  };
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {}), says.handBack("ok")), { guards: [guard] });
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const state = await agent.run("read");
  assert.equal(state.status, "completed");
  const step = one(spans(), "step 0");
  assert.equal(step.status.code, SpanStatusCode.ERROR);
  assert.equal(step.attributes["error.type"], "blocked");
  assert.equal(step.attributes["leash.outcome"], "blocked");
  assert.match(String(step.status.message), /No reading today/);
  const blocked = step.events.find((event) => event.name === "guard_blocked");
  assert.equal(blocked?.attributes?.["leash.guard"], "Shop rules");
  assert.equal(blocked?.attributes?.["leash.guard.point"], "beforeTool");
  assert.deepEqual(named(spans(), "execute_tool read"), []);
  assert.equal(one(spans(), "invoke_agent Clerk").status.code, SpanStatusCode.UNSET);
});

test("a guard that withholds a tool's result leaves the tool span executed and the step withheld, without ERROR", async () => {
  const guard: Guard = { name: "Privacy", afterTool: () => block("It names a customer.") };
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {}), says.handBack("ok")), { guards: [guard] });
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  await agent.run("read");
  assert.equal(one(spans(), "execute_tool read").attributes["leash.outcome"], "executed");
  const step = one(spans(), "step 0");
  assert.equal(step.attributes["leash.outcome"], "withheld");
  assert.equal(step.status.code, SpanStatusCode.UNSET);
  assert.equal(step.attributes["leash.record.seq"], 5, "the guard's record is the step's last");
});

test("a guard that blocks a model's answer fails the run span with model_blocked; the blocked call is the step's child", async () => {
  const guard: Guard = { name: "Tone", afterModel: () => block("Too rude.") };
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {})), { guards: [guard] });
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const state = await agent.run("read");
  assert.equal(state.failure?.code, "model_blocked");
  const run = one(spans(), "invoke_agent Clerk");
  assert.equal(run.status.code, SpanStatusCode.ERROR);
  assert.equal(run.attributes["error.type"], "model_blocked");
  assert.equal(run.attributes["leash.outcome"], "failed");
  const chat = one(spans(), "chat M");
  assert.equal(parentOf(spans(), chat)?.name, "step 0");
  assert.equal(one(spans(), "step 0").attributes["leash.outcome"], "blocked");
});

test("a denied approval is the step's outcome, not an ERROR", async () => {
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("write", { text: "x" }), says.handBack("ok")));
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const paused = await agent.run("write");
  const digest = paused.pending?.digest ?? "";
  await agent.resume(paused, { approvals: [new Approval(digest, { granted: false, approver: "bob" })] });
  const step = one(spans(), "step 0", 1);
  assert.equal(step.attributes["leash.outcome"], "approval_denied");
  assert.equal(step.status.code, SpanStatusCode.UNSET);
  assert.equal(step.attributes["leash.approval.digest"], digest);
  const answered = step.events.find((event) => event.name === "approval_answered");
  assert.equal(answered?.attributes?.["leash.approval.granted"], false);
  assert.deepEqual(named(spans(), "execute_tool write"), []);
});

test("a model call that fails is a chat span with status ERROR and code model_failed, in a step of its own", async () => {
  const failing: ModelClient = { name: "Flaky", generate: () => Promise.reject(new Error("503 Service Unavailable")) };
  const agent = clerk(failing);
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const state = await agent.run("ask");
  assert.equal(state.failure?.code, "model_failed");
  const chat = one(spans(), "chat Flaky");
  assert.equal(chat.status.code, SpanStatusCode.ERROR);
  assert.equal(chat.attributes["error.type"], "model_failed");
  assert.match(String(chat.status.message), /503/);
  assert.equal(parentOf(spans(), chat)?.name, "step 0");
  const run = one(spans(), "invoke_agent Clerk");
  assert.equal(run.status.code, SpanStatusCode.ERROR);
  assert.equal(run.attributes["error.type"], "model_failed");
});

test("a run that reaches a limit is stopped: an outcome and a stop reason, not an ERROR", async () => {
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {}), says.tool("read", {}), says.handBack("ok")));
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const state = await agent.run("read twice", { limits: { maxSteps: 1 } });
  assert.equal(state.status, "stopped");
  const run = one(spans(), "invoke_agent Clerk");
  assert.equal(run.attributes["leash.outcome"], "stopped");
  assert.equal(run.attributes["leash.stop_reason"], state.stopReason);
  assert.equal(run.status.code, SpanStatusCode.UNSET);
});

test("a skill tried twice is two runs, the retry naming its attempt and the run it retries; giving up adds no span", async () => {
  const failing: ModelClient = { name: "Flaky", generate: () => Promise.reject(new Error("overloaded")) };
  const agent = clerk(failing);
  const { tracer, spans } = memoryTracer();
  traceAgent(agent, { tracer });
  const outcome = await agent.do(
    { name: "summarise", brief: () => "summarise the report", retry: { attempts: 2 } },
    undefined as never,
  );
  assert.equal(outcome.done, false);
  const runs = named(spans(), "invoke_agent Clerk");
  assert.equal(runs.length, 2);
  const [first, second] = runs;
  assert.equal(first?.attributes["leash.attempt"], 1);
  assert.equal(second?.attributes["leash.attempt"], 2);
  assert.equal(second?.attributes["leash.retry_of"], first?.attributes["leash.run_id"]);
  assert.equal(second?.attributes["leash.skill"], "summarise");
  assert.ok((agent.audit.records ?? []).some((record) => record.event === "gave_up"));
  assert.equal(spans().length, 2 + 2 + 2, "two runs, each with one step and its failed model call");
});
