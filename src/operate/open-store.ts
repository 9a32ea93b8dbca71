import { closeSync, openSync, readSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { LeashError } from "../errors/leash-error.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { RunStore } from "../stores/run-store.js";
import { SqliteStore } from "../stores/sqlite/index.js";
import type { StoreLocation } from "./store-location.js";
import { openPostgresStore } from "./open-postgres.js";

/** The store a command works on: runs and their trail, on SQLite or PostgreSQL. */
export type CliStore = RunStore & AuditSink;

const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * Whether a file begins with the SQLite header. An empty file does not: SQLite would take it for an
 * empty database and a store would write its tables into it, which a command that only reads must not.
 */
export function isSqliteFile(path: string): boolean {
  const descriptor = openSync(path, "r");
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(descriptor, header, 0, header.length, 0);
    return read === header.length && header.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Whether a SQLite file holds leash's tables, looked up on a read-only connection: opening a store
 * creates its tables, which a command that only reads must not do to another program's database.
 */
function holdsLeashTables(path: string): boolean {
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
    const row = database
      .prepare("SELECT count(*) AS count FROM sqlite_master WHERE type = 'table' AND name = 'leash_meta'")
      .get() as { count: number } | undefined;
    return (row?.count ?? 0) > 0;
  } catch (error) {
    throw new LeashError("db_unreadable", `Could not read ${path}: ${(error as Error).message}`);
  } finally {
    database?.close();
  }
}

/**
 * Checks that a SQLite file exists and holds leash's tables, without opening it for writing: opening
 * a SQLite file that does not exist creates it, and `leash runs --db typo.db` must say the file is
 * missing, not list the runs of a new empty database it just made.
 */
export function checkExistingSqlite(path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT")
      throw new LeashError(
        "db_not_found",
        `There is no database at ${path}; give the store of your runs with --db PATH.`,
      );
    throw new LeashError("db_unreadable", `Could not read ${path}: ${(error as Error).message}`);
  }
  if (!isFile)
    throw new LeashError("db_not_found", `${path} is not a file; give the database of your runs with --db PATH.`);
  if (!isSqliteFile(path)) throw new LeashError("not_a_database", `${path} is not a SQLite database.`);
  if (!holdsLeashTables(path)) {
    throw new LeashError(
      "not_a_database",
      `${path} is a SQLite database, but not one of leash's: it has no leash tables.`,
    );
  }
}

/** Opens the store of an existing SQLite file, checked first by {@link checkExistingSqlite}. */
function openExistingSqlite(path: string): SqliteStore {
  checkExistingSqlite(path);
  return new SqliteStore(path);
}

/**
 * Opens the store of an existing database: a SQLite file that holds leash's tables, or a PostgreSQL
 * schema that does. Neither is created here: a command that reads must not make an empty store at a
 * mistyped place.
 */
export async function openExistingStore(location: StoreLocation): Promise<CliStore> {
  if (location.kind === "sqlite") return openExistingSqlite(location.db);
  return openPostgresStore(location);
}

/** Runs `body` with the store of an existing database, and closes the store after it, whatever happens. */
export async function withExistingStore<T>(location: StoreLocation, body: (store: CliStore) => Promise<T>): Promise<T> {
  const store = await openExistingStore(location);
  try {
    return await body(store);
  } finally {
    await store.close().catch((error: unknown) => {
      throw new LeashError("store_failed", `Could not close ${location.label}: ${(error as Error).message}`);
    });
  }
}
