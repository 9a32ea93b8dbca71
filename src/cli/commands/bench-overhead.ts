import { Command } from "commander";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { printJson } from "../print.js";
import { progressReporter } from "../progress-reporter.js";

interface BenchOverheadOptions extends CommonOptions {
  quick?: boolean;
}

/**
 * `leash bench overhead [--quick]`: what bounding and auditing cost per step, beside a bare loop. It
 * measures leash alone, as installed; the comparisons with other frameworks are this repository's
 * `npx tsx bench/overhead.ts`. The Markdown table goes to stdout, progress to stderr.
 */
export function benchOverheadCommand(): Command {
  const command = new Command("overhead")
    .description("the overhead benchmark: time per tool call through leash's sinks and store, beside a bare loop")
    .option("--quick", "small sizes and few runs: the structure and the checks, not the timings");
  return withCommonOptions(command).action(async (options: BenchOverheadOptions) => {
    // Loaded here, not at the top: only this command needs the benchmarks.
    const { formatOverheadTable, runOverheadBenchmark } = await import("../../bench/index.js");
    const progress = progressReporter("bench overhead");
    let result;
    try {
      result = await runOverheadBenchmark({ quick: options.quick === true, onProgress: progress.onProgress });
    } finally {
      progress.stop();
    }
    if (options.json) printJson(result);
    else process.stdout.write(formatOverheadTable(result));
  });
}
