import { statSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import type { CorpusBenchmarkOptions } from "../../bench/index.js";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { printJson } from "../print.js";
import { progressReporter } from "../progress-reporter.js";

interface BenchCorpusOptions extends CommonOptions {
  corpus?: string;
  seed?: number;
  tasks?: number;
}

/** Parses an integer option, refusing anything else with a usage error. */
export function integerOption(minimum: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < minimum) {
      throw new InvalidArgumentError(`Expected an integer of at least ${minimum}.`);
    }
    return parsed;
  };
}

/**
 * `leash bench corpus`: three planners find a sentence's chunk in a Markdown corpus under a policy,
 * then the safety checks. The Markdown table goes to stdout, progress to stderr; exits 1 when a
 * safety check fails.
 */
export function benchCorpusCommand(): Command {
  const command = new Command("corpus")
    .description("the corpus benchmark: planners' success and cost on a Markdown corpus, and the safety checks")
    .option("--corpus <dir>", "the folder of Markdown to search (default: the guide shipped with leash)")
    .option("--seed <n>", "the seed of the task sample", integerOption(Number.MIN_SAFE_INTEGER))
    .option("--tasks <n>", "how many tasks", integerOption(1));
  return withCommonOptions(command).action(async (options: BenchCorpusOptions) => {
    // Loaded here, not at the top: only this command needs the benchmarks and their search index.
    const { corpusChecksPassed, defaultCorpus, formatCorpusTable, runCorpusBenchmark } =
      await import("../../bench/index.js");
    const corpus = options.corpus ?? defaultCorpus();
    if (!isFolder(corpus))
      throw new CliError(
        "corpus_not_found",
        `There is no corpus folder ${corpus}; give a folder of Markdown with --corpus DIR.`,
      );
    const progress = progressReporter("bench corpus");
    const benchmark: CorpusBenchmarkOptions = { corpus, onProgress: progress.onProgress };
    if (options.seed !== undefined) benchmark.seed = options.seed;
    if (options.tasks !== undefined) benchmark.tasks = options.tasks;
    let result;
    try {
      result = await runCorpusBenchmark(benchmark);
    } finally {
      progress.stop();
    }
    if (options.json) printJson(result);
    else process.stdout.write(formatCorpusTable(result));
    if (!corpusChecksPassed(result))
      throw new CliError(
        "bench_check_failed",
        "A safety check of the corpus benchmark failed; see the table.",
        EXIT_FAILURE,
      );
  });
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
