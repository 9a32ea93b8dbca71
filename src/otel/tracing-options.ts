/**
 * The part of an OpenTelemetry `Tracer` that leash calls, written structurally so that leash's
 * declarations name no OpenTelemetry type: any `Tracer` of `@opentelemetry/api` 1.x fits.
 */
export interface SpanTracer {
  startSpan(name: string, options?: object, context?: object): object;
}

/** Options of `traceAgent` and `spansOfTrail`. */
export interface TracingOptions {
  /** Where spans go; default `trace.getTracer("leash")`, the tracer of the global provider. */
  tracer?: SpanTracer;
  /**
   * The agent's tools (anything with a `name` and an `effect`), so a tool span names its effect
   * (`leash.effect`) even when its step asked no approval. Records name a tool's effect only in an
   * approval request.
   */
  tools?: readonly { name: string; effect: string }[];
}
