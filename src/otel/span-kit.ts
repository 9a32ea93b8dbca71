import type { Attributes, Context, Link, Span, SpanOptions, Tracer } from "@opentelemetry/api";
import { INVALID_SPAN_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/** A span leash opened, with what it needs to be ended from records. */
export interface Opened {
  span: Span;
  /** The context whose active span is this one: the parent of its children. */
  context: Context;
}

/** What a span is opened with. */
interface OpenSpec {
  name: string;
  kind: "client" | "internal";
  start: string;
  attributes: Attributes;
  parent: Context;
  links?: Link[];
}

/** How a span is ended. */
interface EndSpec {
  end: string;
  attributes: Attributes;
  error?: { type: string; message?: string } | undefined;
}

/**
 * Opens a span through the tracer. A tracer that throws gives a span that records nothing, so the
 * mapping goes on with the same shape: tracing must never break, nor be broken by, the run it follows.
 */
export function openSpan(tracer: Tracer, spec: OpenSpec): Opened {
  let span: Span;
  try {
    const options: SpanOptions = {
      kind: spec.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
      startTime: timeOf(spec.start),
      attributes: spec.attributes,
    };
    if (spec.links !== undefined && spec.links.length > 0) options.links = spec.links;
    span = tracer.startSpan(spec.name, options, spec.parent);
  } catch {
    span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  }
  return { span, context: trace.setSpan(spec.parent, span) };
}

/** Sets a span's last attributes and status and ends it at a record's time; never throws. */
export function endSpan(opened: Opened, spec: EndSpec): void {
  const { span } = opened;
  try {
    span.setAttributes(spec.attributes);
    if (spec.error !== undefined) {
      span.setAttribute("error.type", spec.error.type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error.message ?? spec.error.type });
    }
  } catch {
    // A span whose setters throw still gets ended below.
  }
  try {
    span.end(timeOf(spec.end));
  } catch {
    // Nothing more can be done for a span that cannot end; the run goes on.
  }
}

/** Adds a span event at a record's time; never throws. */
export function addEvent(opened: Opened, name: string, at: string, attributes: Attributes): void {
  try {
    opened.span.addEvent(name, attributes, timeOf(at));
  } catch {
    // An event is a detail; losing it must not lose the span.
  }
}

/** Adds attributes to an open span; never throws. */
export function annotate(opened: Opened, attributes: Attributes): void {
  try {
    opened.span.setAttributes(attributes);
  } catch {
    // As above.
  }
}

/** The span context of an opened span, for a link from a later stretch of the same run. */
export function linkTo(opened: Opened): Link | undefined {
  try {
    const context = opened.span.spanContext();
    return trace.isSpanContextValid(context) ? { context } : undefined;
  } catch {
    return undefined;
  }
}

/** A record's time as a `Date`: records carry ISO 8601 times with milliseconds. */
function timeOf(at: string): Date {
  const time = new Date(at);
  return Number.isNaN(time.getTime()) ? new Date(0) : time;
}
