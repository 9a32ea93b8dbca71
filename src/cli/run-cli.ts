import { CommanderError } from "commander";
import { EXIT_USAGE } from "./cli-error.js";
import { createProgram } from "./program.js";
import { debugging, errorText, oneLine, reportOf, stackOf } from "./report-error.js";

/** Whether the command line asks for machine output: then an error is a JSON document too. */
function wantsJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

/** Commander's ways of ending that are not errors: help or the version, asked for. */
const FINE = new Set(["commander.helpDisplayed", "commander.version"]);

/**
 * Runs the `leash` command line on `argv` (as `process.argv`) and returns the exit status: 0, 1 for
 * a failed verification or a failure while working on a run, 2 for a usage or input error, 3 for a
 * store that failed, cannot be reached or is busy (try again). Every error is one
 * line on stderr, `leash: <message> (<code>)`, or with `--json` one JSON document
 * `{ "error": { "code", "message" } }` on one line; `LEASH_DEBUG=1` adds the stack trace above it.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const json = wantsJson(argv);
  try {
    await (await createProgram(argv)).parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (FINE.has(error.code)) return 0;
      // `leash` alone: commander printed the help on stderr.
      if (error.code === "commander.help") return EXIT_USAGE;
      const message = oneLine(error.message.replace(/^error: /, ""));
      process.stderr.write(`${errorText({ code: "usage", message }, json)}\n`);
      return EXIT_USAGE;
    }
    if (debugging()) process.stderr.write(`${stackOf(error)}\n`);
    const report = reportOf(error);
    process.stderr.write(`${errorText(report, json)}\n`);
    return report.exitCode;
  }
}
