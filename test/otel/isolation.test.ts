// Tracing stays out of the way: `leash` never loads OpenTelemetry, and a broken tracer never
// reaches a run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Span, Tracer } from "@opentelemetry/api";
import { Approval, isLeashError, tool, verifyAudit } from "../../src/index.js";
import type { Agent } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import { spansOfTrail, traceAgent } from "../../src/otel/index.js";
import { clerk, memoryTracer } from "./otel-helpers.js";

// These import the built package by its own name, as users do: `npm test` builds first.
const root = fileURLToPath(new URL("../../", import.meta.url));

function loadedBy(program: string): string[] {
  const result = spawnSync(
    process.execPath,
    ["--import", "./test/fixtures/trace-imports.mjs", "--input-type=module", "-e", program],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  return result.stderr.split("\n").filter((line) => line.startsWith("loaded "));
}

test("importing leash does not load @opentelemetry/api; importing leash/otel does", () => {
  const core = loadedBy('await import("leash"); await import("leash/testing");');
  assert.ok(core.length > 0, "the probe sees the packages the core loads");
  assert.ok(!core.some((line) => line.includes("@opentelemetry")), "leash loads no OpenTelemetry package");
  const otel = loadedBy(
    'const { traceAgent } = await import("leash/otel"); if (typeof traceAgent !== "function") process.exit(2);',
  );
  assert.ok(
    otel.some((line) => line.includes("/@opentelemetry/api/")),
    "leash/otel loads the API",
  );
  assert.ok(!otel.some((line) => line.includes("sdk-trace")), "leash/otel loads no SDK");
});

const throwing = (): never => {
  throw new Error("the collector is down");
};

/** A tracer whose every span throws from every method. */
const brokenSpans: Tracer = {
  startSpan: () => new Proxy({}, { get: () => throwing }) as Span,
  startActiveSpan: throwing,
};

function paying(): Agent {
  return clerk(
    scriptedModel({ name: "M" }, says.tool("read", {}), says.tool("write", { text: "x" }), says.handBack("ok")),
  );
}

async function runToEnd(agent: Agent) {
  const paused = await agent.run("pay");
  const digest = paused.pending?.digest ?? "";
  return agent.resume(paused, { approvals: [new Approval(digest, { granted: true, approver: "allen" })] });
}

for (const [name, tracer] of [
  ["whose startSpan throws", { startSpan: throwing, startActiveSpan: throwing } as Tracer],
  ["whose spans throw from every method", brokenSpans],
] as const) {
  test(`a tracer ${name} does not change the run or its trail`, async () => {
    const traced = paying();
    const stop = traceAgent(traced, { tracer });
    const done = await runToEnd(traced);
    stop();
    const untraced = paying();
    const plain = await runToEnd(untraced);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.toolCalls, plain.toolCalls);
    const events = (agent: Agent) => (agent.audit.records ?? []).map((record) => record.event);
    assert.deepEqual(events(traced), events(untraced));
    assert.deepEqual(verifyAudit(traced.audit.records ?? []), []);
    assert.doesNotThrow(() => spansOfTrail(traced.audit.records ?? [], { tracer }));
  });
}

test("stopping the tracing mid-run ends the spans still open as incomplete, and makes no more", async () => {
  const { tracer, spans } = memoryTracer();
  let stop = (): void => undefined;
  const stopper = tool({
    name: "read",
    execute: () => {
      stop();
      return "page";
    },
  });
  const agent = clerk(scriptedModel({ name: "M" }, says.tool("read", {}), says.handBack("ok")), { tools: [stopper] });
  stop = traceAgent(agent, { tracer });
  const state = await agent.run("read");
  assert.equal(state.status, "completed");
  const names = spans().map((span) => span.name);
  assert.deepEqual(names.sort(), ["chat M", "execute_tool read", "invoke_agent Clerk", "step 0"]);
  const open = spans().filter((span) => span.name !== "chat M");
  assert.ok(open.every((span) => span.attributes["leash.incomplete"] === true));
  assert.ok(
    open.every((span) => span.attributes["leash.record.seq"] === 3),
    "each ends at the last record seen",
  );
  stop();
  assert.equal(spans().length, 4);
});

test("options are checked when tracing starts, naming the option", () => {
  const agent = paying();
  for (const [options, pattern] of [
    [{ tracer: {} }, /`tracer`/],
    [{ tools: "read" }, /`tools`/],
    ["tracer", /options of `traceAgent`/],
  ] as const) {
    assert.throws(
      () => traceAgent(agent, options as never),
      (error: unknown) => isLeashError(error, "invalid_option") && pattern.test((error as Error).message),
    );
  }
  assert.throws(
    () => traceAgent({} as never),
    (error: unknown) => isLeashError(error, "invalid_option"),
  );
  assert.throws(
    () => spansOfTrail(42 as never),
    (error: unknown) => isLeashError(error, "invalid_option"),
  );
});

test("records that are not what a trail holds never make spansOfTrail throw", () => {
  const { tracer, spans } = memoryTracer();
  const base = { v: 1, run: "r", prev: null, digest: "d" } as const;
  const odd = [
    { ...base, seq: 0, at: "not a time", event: "run_started", data: null },
    { ...base, seq: 1, at: "2026-01-05T09:00:00.000Z", event: "decision_made", data: [1, 2] },
    { ...base, seq: 2, at: "2026-01-05T09:00:00.001Z", event: "tool_started", data: { step: "zero" } },
    { ...base, seq: 3, at: "2026-01-05T09:00:00.002Z", event: "tool_ended", data: { step: 0, error: 7 } },
    { ...base, seq: 4, at: "2026-01-05T09:00:00.003Z", event: "model_called", data: { usage: "lots" } },
    { ...base, seq: 5, at: "2026-01-05T09:00:00.004Z", event: "run_ended", data: { failure: [] } },
    { ...base, run: "s", seq: 9, at: "2026-01-05T09:00:00.004Z", event: "gave_up", data: {} },
    null,
    "a line",
  ];
  assert.doesNotThrow(() => spansOfTrail(odd as never, { tracer }));
  assert.ok(spans().every((span) => span.ended));
});
