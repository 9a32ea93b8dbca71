import { existsSync, rmSync, statSync } from "node:fs";
import { Command } from "commander";
import { CliError } from "../cli-error.js";
import { isPostgresUrl, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { runDemo } from "../demo/run-demo.js";
import { isSqliteFile } from "../../operate/open-store.js";
import { printJson, printLines } from "../print.js";

/** The demo's own file, used unless `--db` names another. */
const DEMO_DB = "leash-demo.db";

interface DemoOptions extends CommonOptions {
  force?: boolean;
}

function removeSqliteFile(path: string): void {
  // The write-ahead log and its index belong to the file: left behind, SQLite would replay them into the new one.
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Makes room for the demo's file. The demo never writes into an existing store: its runs would mix
 * with real ones. Its own default file is replaced (it is the demo's); a file given with `--db` that
 * exists is refused, unless `--force` says to replace it; a file that is not a SQLite database is
 * never replaced. Returns whether a file was replaced.
 */
function freshDemoFile(path: string, own: boolean, force: boolean): boolean {
  if (!existsSync(path)) return false;
  if (statSync(path).isDirectory())
    throw new CliError(
      "invalid_option",
      `${path} is a directory: give --db the path of a new SQLite file for the demo (say ${path}/${DEMO_DB}).`,
    );
  if (!isSqliteFile(path))
    throw new CliError(
      "not_a_database",
      `${path} exists and is not a SQLite database; the demo will not overwrite it.`,
    );
  if (!own && !force) {
    throw new CliError(
      "db_exists",
      `${path} exists: the demo writes only into a fresh file, never into a store of real runs. Give a new file with --db, or --force to replace this one.`,
    );
  }
  removeSqliteFile(path);
  return true;
}

/**
 * `leash demo [--db PATH] [--force]`: the workshop end to end on a fresh SQLite file (default
 * `./leash-demo.db`, replaced at each demo): guards, a pause for approval, the approval recorded as
 * `leash approve` records it, the resume and the verified trail, told step by step. It ignores
 * `LEASH_DB`, which names a real store.
 */
export function demoCommand(): Command {
  const command = new Command("demo")
    .description(`run the workshop end to end on a fresh SQLite file (default: ./${DEMO_DB}, replaced each time)`)
    .option("--force", "replace the --db file if it exists (the demo never writes into an existing store)");
  return withCommonOptions(command).action(async (options: DemoOptions) => {
    const db = options.db ?? DEMO_DB;
    if (isPostgresUrl(db) || options.schema !== undefined)
      throw new CliError("invalid_option", "The demo runs on a SQLite file of its own: give --db a new file path.");
    const replaced = freshDemoFile(db, options.db === undefined, options.force === true);
    const tell = options.json ? () => undefined : (line: string) => printLines([line]);
    if (replaced) tell(`(Replaced the ${db} of an earlier demo.)`);
    const result = await runDemo(db, tell);
    if (options.json) printJson(result);
  });
}
