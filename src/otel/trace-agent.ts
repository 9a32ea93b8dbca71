import type { Agent } from "../agent/agent.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { LeashError } from "../errors/index.js";
import { mapperOptions } from "./mapper-options.js";
import type { TracingOptions } from "./tracing-options.js";
import { SpanMapper } from "./span-mapper.js";

/**
 * Traces an agent's runs as OpenTelemetry spans, from the audit records it makes: one span per run
 * (`invoke_agent {agent}`; a pause ends it with `leash.paused`, a resume opens one linked to the
 * first), one per step as its child (`step {n}`), and one per model call (`chat {model}`) and tool
 * call (`execute_tool {tool}`) as the step's children. Times are the records' own, and every span
 * carries the seq and digest of the record that ended it, so a trace points back into the verified
 * trail. Runs and resumes of any process that uses this agent are traced; a tracer that throws is
 * caught and never reaches the run. Returns a function that stops tracing and ends the spans still
 * open (marked `leash.incomplete`).
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * import { traceAgent } from "leash/otel";
 *
 * const stopTracing = traceAgent(agent, { tracer: trace.getTracer("my-app") });
 * await agent.run("summarise the report");
 * stopTracing();
 */
export function traceAgent(agent: Pick<Agent, "on" | "name">, options?: TracingOptions): () => void {
  if (typeof agent !== "object" || agent === null || typeof agent.on !== "function") {
    throw new LeashError("invalid_option", "Expected `agent` to be a leash Agent.");
  }
  const name = typeof agent.name === "string" ? agent.name : undefined;
  const mapper = new SpanMapper({ ...mapperOptions(options, "traceAgent"), agentName: name });
  let tracing = true;
  const unsubscribe = agent.on("record", (record: AuditRecord) => {
    if (!tracing) return;
    try {
      mapper.feed(record);
    } catch {
      // Tracing follows the run and must never break it: a record the mapping cannot place is skipped.
    }
  });
  return () => {
    if (!tracing) return;
    tracing = false;
    unsubscribe();
    try {
      mapper.close();
    } catch {
      // As above: stopping the tracing cannot fail the caller.
    }
  };
}
