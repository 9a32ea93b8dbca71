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
 *   npm run build && npx tsx bench/overhead.ts [--quick] [--steps 10,100,1000] [--runs 7] [--scenarios leash-memory,bare-loop] [--src] [--json] [--no-save]
 */
import { parseArgs } from "node:util";
import type { OverheadBenchmarkOptions } from "../src/bench/index.js";
import { progressReporter } from "../src/cli/progress-reporter.js";
import { peerScenarios } from "./peers/index.js";
import { loadLeash } from "./peers/leash-module.js";
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
  },
});
const { leash, from } = await loadLeash(values.src);
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
