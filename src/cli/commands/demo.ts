import { existsSync, rmSync } from "node:fs";
import { Command } from "commander";
import { CliError } from "../cli-error.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { runDemo } from "../demo/run-demo.js";
import { isSqliteFile } from "../open-store.js";
import { printJson } from "../print.js";

/** The demo's own file, used unless `--db` names another. */
export const DEMO_DB = "leash-demo.db";

/**
 * Starts the default demo file afresh. Only the demo's own default file is replaced, and only when it
 * is a SQLite file: a file given with `--db` is added to (a run id is never reused), never removed.
 */
function freshDemoFile(path: string): boolean {
  if (!existsSync(path)) return false;
  if (!isSqliteFile(path))
    throw new CliError(
      "not_a_database",
      `${path} exists and is not a SQLite database; the demo will not overwrite it.`,
    );
  // The write-ahead log and its index belong to the file: left behind, SQLite would replay them into the new one.
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  return true;
}

/**
 * `leash demo [--db PATH]`: the workshop end to end on a SQLite file (default a fresh
 * `./leash-demo.db`): guards, a pause for approval, the approval recorded as `leash approve` records
 * it, the resume and the verified trail, told step by step.
 */
export function demoCommand(): Command {
  const command = new Command("demo").description(
    `run the workshop end to end on a SQLite file (default: a fresh ./${DEMO_DB})`,
  );
  return withCommonOptions(command, DEMO_DB).action(async (options: CommonOptions, self: Command) => {
    const replaced = self.getOptionValueSource("db") === "default" && freshDemoFile(options.db);
    const tell = options.json ? () => undefined : (line: string) => process.stdout.write(`${line}\n`);
    if (replaced) tell(`(Replaced the ${options.db} of an earlier demo.)`);
    const result = await runDemo(options.db, tell);
    if (options.json) printJson(result);
  });
}
