import type { Tracer } from "@opentelemetry/api";
import { trace } from "@opentelemetry/api";
import { LeashError } from "../errors/index.js";
import type { SpanMapperOptions } from "./span-mapper.js";
import type { TracingOptions } from "./tracing-options.js";

/** Checks and defaults the options once, before anything is subscribed or read. */
export function mapperOptions(options: TracingOptions | undefined, caller: string): SpanMapperOptions {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new LeashError("invalid_option", `Expected the options of \`${caller}\` to be an object.`);
  }
  const { tracer, tools } = options ?? {};
  if (
    tracer !== undefined &&
    (typeof tracer !== "object" || tracer === null || typeof tracer.startSpan !== "function")
  ) {
    throw new LeashError("invalid_option", "Expected `tracer` to be an OpenTelemetry Tracer (with `startSpan`).");
  }
  if (tools !== undefined && !Array.isArray(tools)) {
    throw new LeashError("invalid_option", "Expected `tools` to be an array of tools.");
  }
  const effects = new Map<string, string>();
  for (const item of (tools ?? []) as readonly unknown[]) {
    const { name, effect } = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof name === "string" && typeof effect === "string") effects.set(name, effect);
  }
  // The structural type was checked above to have `startSpan`; leash calls nothing else of a tracer.
  return { tracer: (tracer as Tracer | undefined) ?? trace.getTracer("leash"), effectOf: (name) => effects.get(name) };
}
