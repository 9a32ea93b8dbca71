/**
 * The overhead benchmark with the peers: what bounding and auditing cost per step, beside the
 * frameworks a user would pick instead (bench/peers/, which need this repository's dev dependencies)
 * and the bare loop; the shipped `leash bench overhead` is the same without the peers. Prints the Markdown tables (or the JSON with --json) and writes both to bench/results/ (not
 * with --no-save). Exits 0 whether or not the targets are met: the tables say which were missed.
 *
 * leash is taken from the built package in dist/ (`npm run build` first), as users and the shipped
 * command run it; `--src` takes the TypeScript source through tsx instead, which is slower (tsx wraps
 * every nested function with a naming helper).
 *
 * `--interleaved` measures the way an outside harness does instead (bench/peers/interleaved-comparison.ts):
 * leash's modelPlanner over a plain client, its rule planner and the AI SDK's generateText, interleaved
 * run by run in one process, `--runs` rounds (default 30) of `--steps` calls (default 100), no warm-up
 * unless `--warmup` rounds are asked for; it writes bench/results/overhead-interleaved.md.
 *
 *   npm run build && npx tsx bench/overhead.ts [--quick] [--steps 10,100,1000] [--runs 7] [--scenarios leash-memory,bare-loop] [--src] [--json] [--no-save]
 *   npm run build && npx tsx bench/overhead.ts --interleaved [--runs 30] [--steps 100] [--warmup 0] [--src] [--json] [--no-save]
 */
import { parseArgs } from "node:util";
import type { OverheadBenchmarkOptions } from "../src/bench/index.js";
import { machineInfo } from "../src/bench/machine-info.js";
import { progressReporter } from "../src/cli/progress-reporter.js";
import { peerScenarios } from "./peers/index.js";
import { loadLeash } from "./peers/leash-module.js";
import { formatInterleaved, runInterleaved } from "./peers/interleaved-comparison.js";
import { aiSdkContestant, leashContestants } from "./peers/outsider-contestants.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    steps: { type: "string" },
    runs: { type: "string" },
    scenarios: { type: "string" },
    json: { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
    src: { type: "boolean", default: false },
    interleaved: { type: "boolean", default: false },
    warmup: { type: "string" },
  },
});
const { leash, from } = await loadLeash(values.src);
if (values.interleaved) {
  await runInterleavedMode();
  process.exit(0);
}
const { formatOverheadTable, runOverheadBenchmark } = leash;

const list = (text: string): string[] =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
const options: OverheadBenchmarkOptions = { quick: values.quick, peers: peerScenarios(leash) };
if (values.steps !== undefined) options.steps = list(values.steps).map(Number);
if (values.runs !== undefined) options.runs = Number(values.runs);
if (values.scenarios !== undefined) options.scenarios = list(values.scenarios);
const progress = progressReporter("overhead");
options.onProgress = progress.onProgress;
const result = await runOverheadBenchmark(options);
progress.stop();
const markdown = `leash measured from ${from}.\n\n${formatOverheadTable(result)}`;
process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : markdown);
if (!values["no-save"]) {
  const command = `npx tsx bench/overhead.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults("overhead", {
    title: "Overhead benchmark",
    command,
    machine: result.machine,
    markdown,
    json: result,
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}

/** The outsider's measurement: `--interleaved`. */
async function runInterleavedMode(): Promise<void> {
  const count = (text: string | undefined, fallback: number, least: number, what: string): number => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(value) || value < least)
      throw new Error(`Expected ${what} to be an integer of at least ${least}.`);
    return value;
  };
  const settings = {
    steps: count(values.steps, 100, 1, "--steps"),
    runs: count(values.runs, 30, 1, "--runs"),
    warmup: count(values.warmup, 0, 0, "--warmup"),
  };
  const machine = machineInfo();
  const contestants = [...leashContestants(leash), await aiSdkContestant()];
  const progress = progressReporter("overhead --interleaved");
  const result = await runInterleaved(contestants, settings, (done, total) =>
    progress.onProgress(done, total, done < total ? `round ${done + 1} of ${total}` : "done"),
  );
  progress.stop();
  const markdown = `leash measured from ${from}.\n\n${formatInterleaved(result)}`;
  process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : markdown);
  if (!values["no-save"]) {
    const command = `npx tsx bench/overhead.ts ${process.argv.slice(2).join(" ")}`.trim();
    const written = writeResults("overhead-interleaved", {
      title: "Overhead measured as an outside harness does: interleaved, no warm-up",
      command,
      machine,
      markdown,
      json: result,
    });
    process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
  }
}
