/**
 * `leash/otel`: a run as OpenTelemetry spans (GenAI semantic conventions plus leash's own attributes)
 * that point back into the verified audit trail. `@opentelemetry/api` is an optional peer: only this
 * subpath loads it, never `leash` itself.
 * @packageDocumentation
 */
export { traceAgent } from "./trace-agent.js";
export { spansOfTrail } from "./spans-of-trail.js";
export type { TrailSpans } from "./spans-of-trail.js";
export type { TracingOptions, SpanTracer } from "./tracing-options.js";
export { GEN_AI, LEASH, OPERATION, ERROR_OUTCOMES } from "./span-names.js";
