/**
 * Where the time of a step goes: a CPU profile (the inspector's sampling profiler, as `node --cpu-prof`
 * takes it) of runs of N no-op calls of one scenario of the overhead benchmark (default: leash with
 * the memory sink), summed by file and by function; for leash with the memory sink also a breakdown
 * that times each operation of a step alone. Writes bench/results/<scenario>-profile.md (not with
 * --no-save).
 *
 *   npx tsx bench/profile.ts [--scenario leash-memory] [--steps 100] [--runs 300] [--cpuprofile out.cpuprofile] [--no-save]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { parseArgs } from "node:util";
import { machineInfo, overheadScenarios } from "../src/bench/index.js";
import { peerScenarios } from "./peers/index.js";
import { loadLeash } from "./peers/leash-module.js";
import type { CpuProfile, ProfileEntry } from "./profile/cpu-profile-summary.js";
import { summarizeCpuProfile } from "./profile/cpu-profile-summary.js";
import { measureStepCosts } from "./profile/step-costs.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    scenario: { type: "string", default: "leash-memory" },
    steps: { type: "string", default: "100" },
    runs: { type: "string", default: "300" },
    cpuprofile: { type: "string" },
    "no-save": { type: "boolean", default: false },
  },
});
// The source, so that the profile names its files and functions.
const { leash } = await loadLeash(true);
const steps = Number(values.steps);
const runs = Number(values.runs);
const machine = machineInfo();

const scenario = overheadScenarios(peerScenarios(leash)).find((candidate) => candidate.id === values.scenario);
if (scenario === undefined)
  throw new Error(
    `No scenario ${values.scenario}; the scenarios are ${overheadScenarios(peerScenarios(leash))
      .map((item) => item.id)
      .join(", ")}.`,
  );
const workspace = mkdtempSync(join(tmpdir(), "leash-profile-"));
const cell = await scenario.open(steps, workspace);
const runOnce = async (): Promise<void> => {
  const run = await cell.prepare();
  await run();
};
for (let run = 0; run < 20; run++) await runOnce();
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const started = performance.now();
for (let run = 0; run < runs; run++) await runOnce();
const elapsed = performance.now() - started;
const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: CpuProfile };
session.disconnect();
await cell.close();
rmSync(workspace, { recursive: true, force: true });
if (values.cpuprofile !== undefined) writeFileSync(values.cpuprofile, JSON.stringify(profile));

const summary = summarizeCpuProfile(profile);
const perStep = (entry: ProfileEntry, field: "selfMs" | "totalMs"): string =>
  ((entry[field] * 1000) / (runs * steps)).toFixed(2);
const share = (entry: ProfileEntry, field: "selfMs" | "totalMs"): string =>
  `${((entry[field] / summary.totalMs) * 100).toFixed(1)}%`;
const table = (entries: ProfileEntry[], count: number): string[] => [
  "| where | self | self µs/step | total | total µs/step |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...entries
    .slice(0, count)
    .map(
      (entry) =>
        `| \`${entry.name}\` | ${share(entry, "selfMs")} | ${perStep(entry, "selfMs")} | ${share(entry, "totalMs")} | ${perStep(entry, "totalMs")} |`,
    ),
];

const breakdown =
  scenario.id === "leash-memory" ? await measureStepCosts({ steps, iterations: 20_000, runs: 15 }) : null;
const sum = breakdown === null ? 0 : breakdown.costs.reduce((total, cost) => total + cost.perStepUs, 0);
const breakdownLines =
  breakdown === null
    ? []
    : [
        `Each operation of a step timed alone (${20_000} calls each), with the inputs of a ${steps}-step run, against a measured step of ` +
          `${breakdown.measuredStepUs.toFixed(1)} µs (median of 15 runs, not profiled):`,
        "",
        "| operation | where | µs per call | calls per step | µs per step |",
        "| --- | --- | ---: | ---: | ---: |",
        ...breakdown.costs.map(
          (cost) =>
            `| ${cost.operation} | ${cost.where} | ${cost.perCallUs.toFixed(2)} | ${cost.callsPerStep} | ${cost.perStepUs.toFixed(1)} |`,
        ),
        `| sum of the parts | | | | ${sum.toFixed(1)} |`,
        `| the rest: the loop's awaits and promises, allocation, garbage collection | | | | ${(breakdown.measuredStepUs - sum).toFixed(1)} |`,
        "",
      ];
const markdown = [
  `${runs} runs of ${steps} no-op calls (${scenario.label}), profiled: ${((elapsed * 1000) / (runs * steps)).toFixed(1)} µs per step while profiled ` +
    `(sampling every 100 µs adds to it). Per-step figures divide the time by the ${runs * steps} steps.`,
  "",
  "By file (self: time in the file's own code; total: with everything it called):",
  "",
  ...table(summary.files, 25),
  "",
  "By function:",
  "",
  ...table(summary.functions, 40),
  "",
  ...breakdownLines,
].join("\n");
process.stdout.write(markdown);
if (!values["no-save"]) {
  const command = `npx tsx bench/profile.ts ${process.argv.slice(2).join(" ")}`.trim();
  writeResults(`${scenario.id}-profile`, {
    title: `Where a step's time goes: ${scenario.label}`,
    command,
    machine,
    markdown,
    json: {
      scenario: scenario.id,
      steps,
      runs,
      elapsedMs: elapsed,
      summary: { ...summary, functions: summary.functions.slice(0, 80) },
      breakdown,
    },
  });
}
