import { Command } from "commander";
import { benchCorpusCommand } from "./bench-corpus.js";
import { benchOverheadCommand } from "./bench-overhead.js";

/** `leash bench corpus|overhead`: the benchmarks, as programs that print Markdown tables. */
export function benchCommand(): Command {
  return new Command("bench")
    .description("run a benchmark and print its Markdown table (progress on stderr)")
    .addCommand(benchCorpusCommand())
    .addCommand(benchOverheadCommand());
}
