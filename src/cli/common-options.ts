import type { Command } from "commander";
import { CliError } from "./cli-error.js";
import { maskUrl } from "../operate/mask-password.js";
import type { StoreLocation } from "../operate/store-location.js";

/** The database every command reads or writes when neither `--db` nor `LEASH_DB` names one. */
const DEFAULT_DB = "./leash.db";

/** The environment variable that names the database when `--db` is absent. */
const DB_VARIABLE = "LEASH_DB";

/** The options every command takes. */
export interface CommonOptions {
  /** The store: a SQLite file or a PostgreSQL URL; absent, `LEASH_DB`, then {@link DEFAULT_DB}. */
  db?: string;
  /** The PostgreSQL schema of the store's tables (default `public`); only with a PostgreSQL URL. */
  schema?: string;
  /** Print one JSON document on stdout instead of text. */
  json?: boolean;
}

/** Whether `--db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * Where the store of a command is: `--db`, else `LEASH_DB`, else `./leash.db`. A `postgres://` or
 * `postgresql://` URL is a PostgreSQL database (its tables in `--schema`, default `public`); anything
 * else is a SQLite file.
 */
export function storeLocation(options: CommonOptions): StoreLocation {
  const fromEnvironment = process.env[DB_VARIABLE];
  const db = options.db ?? (fromEnvironment !== undefined && fromEnvironment !== "" ? fromEnvironment : DEFAULT_DB);
  if (db.trim() === "")
    throw new CliError("invalid_option", "Expected --db to name a SQLite file or a PostgreSQL URL.");
  if (isPostgresUrl(db)) {
    // A URL that does not parse is the caller's to fix (a usage error), not a failure of leash's.
    if (!URL.canParse(db))
      throw new CliError(
        "invalid_option",
        "Expected --db to be a PostgreSQL URL that parses: the scheme postgres, then user, host, port and database.",
      );
    const schema = options.schema ?? "public";
    if (schema.trim() === "") throw new CliError("invalid_option", "Expected --schema to name a PostgreSQL schema.");
    const label = maskUrl(db);
    const args = `--db ${label}${options.schema === undefined ? "" : ` --schema ${schema}`}`;
    return { kind: "postgres", db, schema, label: `${label} (schema ${schema})`, args };
  }
  if (options.schema !== undefined)
    throw new CliError("invalid_option", "--schema applies to a PostgreSQL store only; --db names a SQLite file.");
  return { kind: "sqlite", db, label: db, args: `--db ${db}` };
}

/**
 * Adds `--db`, `--schema` and `--json` to a command. They are declared on each command rather than
 * once on the program so that they may come after the command's name (`leash runs --db x.db`), where
 * people put them. `--db` has no default here: {@link storeLocation} falls back on `LEASH_DB`.
 */
export function withCommonOptions(command: Command): Command {
  return command
    .option(
      "--db <path|url>",
      `the store: a SQLite file or a postgres:// URL (default: $${DB_VARIABLE}, then ${DEFAULT_DB})`,
    )
    .option("--schema <name>", "the PostgreSQL schema of the store's tables (default: public)")
    .option("--json", "print one JSON document on stdout (for scripts); errors too, on stderr");
}
