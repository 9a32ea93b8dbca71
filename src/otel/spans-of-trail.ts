import type { AuditRecord } from "../audit/audit-record.js";
import { LeashError } from "../errors/index.js";
import { mapperOptions } from "./mapper-options.js";
import type { TracingOptions } from "./tracing-options.js";
import { SpanMapper } from "./span-mapper.js";

/** What {@link spansOfTrail} made. */
export interface TrailSpans {
  /** The runs whose records were turned into spans. */
  runs: number;
  /** The records read. */
  records: number;
}

/**
 * Makes the spans of runs already in a trail (a store's `read(runId)`, `readAudit(path)`, a sink's
 * `records`): the same spans, names, attributes and times {@link traceAgent} makes live, through the
 * same mapping, so a past run can be exported after the fact. Records of many runs may interleave;
 * each run's are taken in seq order. A run that has not ended gets its open spans ended at its last
 * record, marked `leash.incomplete`. Check the trail first (`verifyAudit`): the spans repeat what the
 * records say, and are only as true as they are.
 *
 * @example
 * import { readAudit, verifyAudit } from "leash";
 * import { spansOfTrail } from "leash/otel";
 *
 * const records = readAudit("audit.jsonl");
 * if (verifyAudit(records).length === 0) spansOfTrail(records, { tracer });
 */
export function spansOfTrail(records: Iterable<AuditRecord>, options?: TracingOptions): TrailSpans {
  if (typeof records !== "object" || records === null || typeof records[Symbol.iterator] !== "function") {
    throw new LeashError("invalid_option", "Expected `records` to be an iterable of audit records.");
  }
  const mapper = new SpanMapper(mapperOptions(options, "spansOfTrail"));
  const runs = new Map<string, AuditRecord[]>();
  let read = 0;
  for (const record of records) {
    if (typeof record !== "object" || record === null || typeof record.run !== "string") continue;
    read += 1;
    const run = runs.get(record.run);
    if (run === undefined) runs.set(record.run, [record]);
    else run.push(record);
  }
  // Spans carry the records' own times, so runs can be fed one after another, each in seq order.
  for (const run of runs.values()) {
    run.sort((a, b) => a.seq - b.seq);
    for (const record of run) mapper.feed(record);
  }
  mapper.close();
  return { runs: runs.size, records: read };
}
