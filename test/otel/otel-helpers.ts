// A tracer over the SDK's in-memory exporter, and readers for the spans it holds.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Tracer } from "@opentelemetry/api";
import { Agent, Policy, tool } from "../../src/index.js";
import type { AgentOptions, AuditRecord, ModelClient } from "../../src/index.js";
import { modelPlanner } from "../../src/models/model-planner.js";

/** A tracer whose spans land in memory, readable in the order they ended. */
export function memoryTracer(): { tracer: Tracer; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("leash-test"), spans: () => exporter.getFinishedSpans() };
}

/** A clock that moves one millisecond per reading, so every record has its own time. */
export function tickingClock(start = Date.parse("2026-01-05T09:00:00.000Z")): () => Date {
  let now = start;
  return () => new Date((now += 1));
}

export const read = tool({ name: "read", effect: "read", execute: () => "page" });
export const write = tool({
  name: "write",
  effect: "write",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: () => "saved",
});
export const explode = tool({
  name: "explode",
  effect: "read",
  execute: () => {
    throw new Error("the disk is on fire");
  },
});
export const tools = [read, write, explode];

/** An agent named Clerk over a model, allowed to read and write. */
export function clerk(model: ModelClient, options: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    name: "Clerk",
    tools,
    planner: modelPlanner({ model }),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    clock: tickingClock(),
    ...options,
  });
}

/** Milliseconds of an OpenTelemetry time. */
export function ms(time: readonly [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}

/** The span whose context is the parent of `span`, among `spans`. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const parent = span.parentSpanContext?.spanId;
  return spans.find((candidate) => candidate.spanContext().spanId === parent);
}

/** The spans named `name`, in start order. */
export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name).sort((a, b) => ms(a.startTime) - ms(b.startTime));
}

/** One span by name (the n-th in start order), failing loudly if it is missing. */
export function one(spans: readonly ReadableSpan[], name: string, index = 0): ReadableSpan {
  const found = named(spans, name)[index];
  if (found === undefined) throw new Error(`no span ${name} #${index}; have ${spans.map((s) => s.name).join(", ")}`);
  return found;
}

/** A span's shape without its ids: what live tracing and a trail's spans must agree on. */
export function shapeOf(spans: readonly ReadableSpan[]): unknown[] {
  const path = (span: ReadableSpan | undefined): string =>
    span === undefined ? "" : `${path(parentOf(spans, span))}/${span.name}@${ms(span.startTime)}`;
  return spans
    .map((span) => ({
      path: path(span),
      end: ms(span.endTime),
      kind: span.kind,
      attributes: span.attributes,
      status: span.status,
      events: span.events.map((event) => [event.name, ms(event.time), event.attributes]),
      links: span.links.length,
    }))
    .map((shape) => ({ key: JSON.stringify(shape), shape }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ shape }) => shape);
}

/** The record of `runId` with this seq. */
export function recordAt(records: readonly AuditRecord[], runId: string, seq: unknown): AuditRecord | undefined {
  return records.find((record) => record.run === runId && record.seq === seq);
}
