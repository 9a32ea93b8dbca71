import type { Command } from "commander";

/** The database every command reads or writes unless given `--db`. */
export const DEFAULT_DB = "./leash.db";

/** The options every command takes. */
export interface CommonOptions {
  /** The SQLite file of runs and their audit trail. */
  db: string;
  /** Print one JSON document on stdout instead of text. */
  json?: boolean;
}

/**
 * Adds `--db PATH` and `--json` to a command. They are declared on each command rather than once on
 * the program so that they may come after the command's name (`leash runs --db x.db`), where people
 * put them.
 */
export function withCommonOptions(command: Command, defaultDb: string = DEFAULT_DB): Command {
  return command
    .option("--db <path>", "the SQLite file of runs and their audit trail", defaultDb)
    .option("--json", "print one JSON document on stdout (for scripts)");
}
