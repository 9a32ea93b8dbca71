/**
 * The corpus benchmark of seed 000's "Measured" section: prints the Markdown table (or the JSON with
 * --json) and writes both to bench/results/ (not with --no-save). Exits 1 when a check fails.
 *
 *   npx tsx bench/corpus.ts [--corpus docs/guide] [--tasks 82] [--seed N] [--quick] [--json] [--no-save]
 */
import { parseArgs } from "node:util";
import { corpusChecksPassed, formatCorpusTable, machineInfo, runCorpusBenchmark } from "../src/bench/index.js";
import type { CorpusBenchmarkOptions } from "../src/bench/index.js";
import { progressReporter } from "../src/cli/progress-reporter.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    corpus: { type: "string" },
    tasks: { type: "string" },
    seed: { type: "string" },
    quick: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
  },
});

const options: CorpusBenchmarkOptions = { quick: values.quick };
if (values.corpus !== undefined) options.corpus = values.corpus;
if (values.tasks !== undefined) options.tasks = Number(values.tasks);
if (values.seed !== undefined) options.seed = Number(values.seed);
const progress = progressReporter("corpus");
options.onProgress = progress.onProgress;
const machine = machineInfo();
const result = await runCorpusBenchmark(options);
progress.stop();
const markdown = formatCorpusTable(result);
process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : markdown);
if (!values["no-save"]) {
  const command = `npx tsx bench/corpus.ts ${process.argv.slice(2).join(" ")}`.trim();
  const written = writeResults("corpus", {
    title: "Corpus benchmark",
    command,
    machine,
    markdown,
    json: result,
    timed: false,
  });
  process.stderr.write(`Wrote ${written.join(" and ")}.\n`);
}
if (!corpusChecksPassed(result)) {
  process.stderr.write("A check of the corpus benchmark failed.\n");
  process.exitCode = 1;
}
