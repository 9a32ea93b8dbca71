/**
 * What tracing adds to a step: the median time per step of a run whose planner calls a `read` tool
 * every step, untraced and traced by `traceAgent` (through OpenTelemetry's no-op tracer, as when
 * `@opentelemetry/api` is installed and no SDK is registered, and through the SDK recording every
 * span into memory), and how fast `spansOfTrail` turns a stored trail into spans. Prints a Markdown
 * table and writes it to bench/results/otel.md and .json (not with --no-save).
 *
 * leash is the built package (`npm run build` first), as users run it.
 *
 *   npm run build && npx tsx bench/otel.ts [--quick] [--steps 200] [--runs 41] [--no-save]
 */
import { parseArgs } from "node:util";
import { trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Agent, Decision, MemoryAuditSink, tool } from "leash";
import type { AuditRecord } from "leash";
import { spansOfTrail, traceAgent } from "leash/otel";
import { machineInfo } from "../src/bench/machine-info.js";
import { median } from "../src/bench/measure.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    steps: { type: "string" },
    runs: { type: "string" },
    "no-save": { type: "boolean", default: false },
  },
});
const steps = Number(values.steps ?? (values.quick ? 50 : 200));
const runs = Number(values.runs ?? (values.quick ? 11 : 41));
const warmup = Math.max(5, Math.ceil(runs / 4));

const read = tool({ name: "read", effect: "read", execute: () => "page" });

function agentOf(audit: MemoryAuditSink): Agent {
  return new Agent({
    name: "Bench",
    tools: [read],
    audit,
    limits: { maxSteps: steps + 1, maxToolCalls: steps },
    planner: (state) => (state.steps.length < steps ? Decision.act("read", {}) : Decision.finish("done")),
  });
}

interface Setup {
  name: string;
  /** Starts tracing an agent; returns what ends it (and clears what the tracer kept). */
  trace?: (agent: Agent) => () => void;
}

const exporter = new InMemorySpanExporter();
const recording: Tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer("bench");

const setups: Setup[] = [
  { name: "untraced" },
  {
    name: 'an empty `agent.on("record")` handler (the feed alone)',
    trace: (agent) => agent.on("record", () => undefined),
  },
  {
    name: "traceAgent, no-op tracer (API without an SDK)",
    trace: (agent) => traceAgent(agent, { tracer: trace.getTracer("bench") }),
  },
  {
    name: "traceAgent, SDK tracer recording every span",
    trace: (agent) => {
      const stop = traceAgent(agent, { tracer: recording });
      return () => {
        stop();
        exporter.reset();
      };
    },
  },
];

/** Microseconds per step of one run under a setup: wall-clock time and CPU time. */
async function oneRun(setup: Setup): Promise<{ perStep: number; cpuPerStep: number; records: AuditRecord[] }> {
  const audit = new MemoryAuditSink();
  const agent = agentOf(audit);
  const stop = setup.trace?.(agent);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const state = await agent.run("read every page");
  const elapsed = Number(process.hrtime.bigint() - started) / 1e3;
  const used = process.cpuUsage(cpu);
  stop?.();
  if (state.status !== "completed") throw new Error(`the bench run ended ${state.status}`);
  return { perStep: elapsed / steps, cpuPerStep: (used.user + used.system) / steps, records: audit.records };
}

const samples = new Map<Setup, { wall: number[]; cpu: number[] }>(
  setups.map((setup) => [setup, { wall: [], cpu: [] }]),
);
let trail: AuditRecord[] = [];
// The setups take turns, run by run, so a machine that slows down or speeds up does so for all.
for (let round = 0; round < warmup + runs; round++) {
  // The order turns too, so no setup always pays for the garbage the one before it left.
  for (let turn = 0; turn < setups.length; turn++) {
    const setup = setups[(round + turn) % setups.length] as Setup;
    const run = await oneRun(setup);
    if (round >= warmup) {
      samples.get(setup)?.wall.push(run.perStep);
      samples.get(setup)?.cpu.push(run.cpuPerStep);
    }
    trail = run.records;
  }
}
const of = (setup: Setup) => samples.get(setup) ?? { wall: [], cpu: [] };
const base = of(setups[0] as Setup);
const rows = setups.map((setup) => {
  const wallUs = median(of(setup).wall);
  const cpuUs = median(of(setup).cpu);
  const traced = setup.trace !== undefined;
  return {
    name: setup.name,
    wallUs,
    cpuUs,
    addedWallUs: traced ? wallUs - median(base.wall) : null,
    addedCpuUs: traced ? cpuUs - median(base.cpu) : null,
  };
});

// spansOfTrail over the last trail: CPU time per record, each run's spans into memory.
const trailSamples: number[] = [];
for (let index = 0; index < warmup + runs; index++) {
  const cpu = process.cpuUsage();
  spansOfTrail(trail, { tracer: recording });
  const used = process.cpuUsage(cpu);
  exporter.reset();
  if (index >= warmup) trailSamples.push((used.user + used.system) / trail.length);
}
const perRecordUs = median(trailSamples);

const format = (value: number): string => value.toFixed(2);
const machine = machineInfo();
const added = (value: number | null): string => (value === null ? "" : format(value));
const table = [
  `A run of ${steps} steps (each a \`read\` tool call, a rule planner, a memory audit sink); medians of ${runs} runs per setup after ${warmup} untimed ones, the setups taking turns. CPU time (user and system) is the figure to read on a busy machine; wall-clock time is given beside it.`,
  "",
  "| setup | CPU µs per step | added, CPU µs per step | wall µs per step | added, wall µs per step |",
  "|---|---:|---:|---:|---:|",
  ...rows.map(
    (row) =>
      `| ${row.name} | ${format(row.cpuUs)} | ${added(row.addedCpuUs)} | ${format(row.wallUs)} | ${added(row.addedWallUs)} |`,
  ),
  "",
  `\`spansOfTrail\` with the SDK tracer: ${format(perRecordUs)} CPU µs per record (${trail.length} records of one run; ${Math.round(1e6 / perRecordUs).toLocaleString("en")} records per second).`,
  "",
  "A step writes 3 records (`decision_made`, `tool_started`, `tool_ended`) and makes 2 spans (the step and",
  'its tool call). Each record handed to `agent.on("record")` is a structured clone, so part of the',
  "added cost is the event feed itself, paid by any listener.",
  "",
].join("\n");
process.stdout.write(table);
if (!values["no-save"]) {
  const command = `npx tsx bench/otel.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults("otel", {
    title: "Tracing benchmark",
    command,
    machine,
    markdown: table,
    json: { steps, runs, warmup, rows, spansOfTrailCpuUsPerRecord: perRecordUs, records: trail.length },
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
