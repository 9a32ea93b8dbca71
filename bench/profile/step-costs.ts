// This breakdown times the core's own internal functions, one by one, with the inputs of a real step;
// it reaches below the public API on purpose, to say what each part of a step costs.
import { makeRecord } from "../../src/audit/audit-record.js";
import { checkRecords } from "../../src/audit/check-records.js";
import { parseDecision } from "../../src/decisions/decision.js";
import type { AuditRecord, Json, RunState } from "../../src/index.js";
import { Decision, MemoryAuditSink, Toolset } from "../../src/index.js";
import { digestOfJson, toJson } from "../../src/json/index.js";
import { noopAgent, noopTool } from "../../src/bench/leash-scenarios.js";

/** What one operation of a step costs. */
export interface StepCost {
  operation: string;
  /** Where the core does it. */
  where: string;
  /** Microseconds per call, timed alone in a loop. */
  perCallUs: number;
  /** How many times one step (decision, gates, call, records) does it. */
  callsPerStep: number;
  perStepUs: number;
}

/** The breakdown, and the whole step it is part of. */
export interface StepCostBreakdown {
  /** Steps of the run whose state and records are the inputs. */
  steps: number;
  /** Per-step time of whole runs of that length (median), for comparison. */
  measuredStepUs: number;
  costs: StepCost[];
}

function timePerCall(iterations: number, operation: () => unknown): number {
  for (let index = 0; index < Math.min(1000, iterations); index++) operation();
  const started = performance.now();
  for (let index = 0; index < iterations; index++) operation();
  return ((performance.now() - started) * 1000) / iterations;
}

function dataOf(records: readonly AuditRecord[], event: string): Json {
  const found = records.find((record) => record.event === event);
  if (found === undefined) throw new Error(`The run has no ${event} record.`);
  return found.data;
}

/**
 * Times each operation a leash step does with the memory sink, with the inputs of a run of `steps`
 * no-op calls (its last state, its records), and counts how often a step does it. What the parts do
 * not add up to is the loop itself: promises, awaits, allocation and garbage collection.
 */
export async function measureStepCosts(options: {
  steps: number;
  iterations: number;
  runs: number;
}): Promise<StepCostBreakdown> {
  const { steps, iterations } = options;
  const sink = new MemoryAuditSink();
  const agent = noopAgent(steps, { audit: sink });
  const times: number[] = [];
  let state: RunState | undefined;
  for (let run = 0; run < options.runs + 1; run++) {
    const started = performance.now();
    state = await agent.run("call the no-op tool");
    if (run > 0) times.push(performance.now() - started);
  }
  if (state === undefined) throw new Error("No run was made.");
  const finalState = state;
  times.sort((a, b) => a - b);
  const measuredStepUs = ((times[times.length >> 1] as number) * 1000) / steps;
  const records = sink.records.filter((record) => record.run === finalState.runId);
  const head = { seq: 10, digest: records[10]?.digest ?? "" };
  const at = new Date().toISOString();
  const toolset = new Toolset([noopTool()]);
  const noop = toolset.get("noop");
  if (noop === undefined) throw new Error("No no-op tool.");
  const args: Json = {};
  const events = ["decision_made", "tool_started", "tool_ended"].map((event) => ({
    event,
    data: dataOf(records, event),
  }));
  // The core appends its own records, made by makeRecord; a step's two checkpoints carry 1 and 2.
  const made = events.map(({ event, data }, index) =>
    makeRecord(finalState.runId, { seq: head.seq + index, digest: head.digest }, event, data, at),
  );
  const one = made.slice(0, 1);
  const two = made.slice(1, 3);

  const cost = (operation: string, where: string, callsPerStep: number, run: () => unknown): StepCost => {
    const perCallUs = timePerCall(iterations, run);
    return { operation, where, perCallUs, callsPerStep, perStepUs: perCallUs * callsPerStep };
  };
  let next = 0;
  const costs: StepCost[] = [
    cost(
      "audit record: toJson copy + canonicalize package + SHA-256",
      "run/active-run record → audit/makeRecord",
      3,
      () => {
        const { event, data } = events[next++ % 3] as { event: string; data: Json };
        return makeRecord(finalState.runId, head, event, data, at);
      },
    ),
    cost("other digests: idempotency key, result digest", "run/invoke-tool → json/digestOfJson", 2, () =>
      digestOfJson(["leash.idempotency/1", finalState.runId, 7, null]),
    ),
    cost(
      `planner's copy of the state (RunState.copy, after ${steps} calls)`,
      "run/ask-planner → state/run-state copy",
      1,
      () => finalState.copy(),
    ),
    cost(
      "tool descriptions for the planner (Toolset.describe, cached)",
      "run/ask-planner → tools/toolset describe",
      1,
      () => toolset.describe().slice(),
    ),
    cost("decision check (parseDecision)", "run/ask-planner → decisions/parseDecision", 1, () =>
      parseDecision(Decision.act("noop", {})),
    ),
    cost("argument size check (JSON.stringify length)", "run/gates", 1, () => JSON.stringify(args).length),
    cost("argument schema validation (Ajv)", "run/gates → tools/schema-validator", 1, () =>
      noop.validator.validate(args),
    ),
    cost("structuredClone of the arguments for execute", "run/invoke-tool", 1, () => structuredClone(args)),
    cost("result check and copy (toJson)", "run/invoke-tool → json/toJson", 1, () => toJson("ok")),
    cost("sink's check of appended records (1 and 2 records)", "audit/memory-audit-sink checkRecords", 1, () => [
      checkRecords(one),
      checkRecords(two),
    ]),
    cost("clock readings (new Date, toISOString)", "run/active-run now, checkpoint, limit checks", 7, () =>
      new Date().toISOString(),
    ),
  ];
  return { steps, measuredStepUs, costs };
}
