import Database from "better-sqlite3";
import { isLeashError, LeashError } from "../index.js";
import { checkExistingSqlite } from "../operate/open-store.js";
import type { ApproverEntry, ApproverRegistry } from "./approver-registry.js";
import type { Role } from "./role-allows.js";
import { deleteSqliteLinksOf } from "./sqlite-links.js";
import {
  approverExists,
  approverTokenHash,
  checkApproverName,
  isApproverTokenShape,
  newApproverToken,
} from "./approver-token.js";

/** How long a write waits on another process's transaction on the file, as the store does. */
const BUSY_TIMEOUT_MS = 5000;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS leash_approvers (
  name TEXT PRIMARY KEY,
  token_sha256 TEXT UNIQUE NOT NULL,
  created_at TEXT NOT NULL
)`;

function failed(error: unknown, doing: string, path: string): LeashError {
  if (isLeashError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const busy = typeof code === "string" && code.startsWith("SQLITE_BUSY");
  return new LeashError(
    busy ? "store_busy" : "store_failed",
    `Could not ${doing} in ${path}: ${(error as Error).message}`,
  );
}

/** The approvers of a SQLite store: a table `leash_approvers` in its file, on a connection of its own. */
class SqliteApprovers implements ApproverRegistry {
  readonly #database: Database.Database;
  readonly #path: string;
  /** Once seen, the table stays: no command drops it. Until then it is looked for on every call. */
  #hasTable = false;

  constructor(database: Database.Database, path: string) {
    this.#database = database;
    this.#path = path;
  }

  #tableExists(): boolean {
    if (this.#hasTable) return true;
    const row = this.#database
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leash_approvers'")
      .get();
    this.#hasTable = row !== undefined;
    return this.#hasTable;
  }

  #do<T>(doing: string, body: () => T): Promise<T> {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(failed(error, doing, this.#path));
    }
  }

  add(name: string): Promise<{ name: string; token: string }> {
    return this.#do("add an approver", () => {
      checkApproverName(name);
      const token = newApproverToken();
      const insert = this.#database.transaction(() => {
        this.#database.exec(CREATE_TABLE);
        return this.#database
          .prepare(
            "INSERT INTO leash_approvers (name, token_sha256, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
          )
          .run(name, approverTokenHash(token), new Date().toISOString()).changes;
      });
      if (insert.immediate() === 0) throw approverExists(name);
      this.#hasTable = true;
      return { name, token };
    });
  }

  list(): Promise<ApproverEntry[]> {
    return this.#do("list the approvers", () => {
      if (!this.#tableExists()) return [];
      const rows = this.#database
        .prepare("SELECT name, created_at FROM leash_approvers ORDER BY created_at, name")
        .all() as { name: string; created_at: string }[];
      return rows.map((row) => ({ name: row.name, createdAt: row.created_at }));
    });
  }

  remove(name: string): Promise<boolean> {
    return this.#do("remove an approver", () => {
      if (!this.#tableExists()) return false;
      // Their one-time links go with them, in the same transaction.
      const remove = this.#database.transaction(() => {
        deleteSqliteLinksOf(this.#database, name);
        return this.#database.prepare("DELETE FROM leash_approvers WHERE name = ?").run(name).changes > 0;
      });
      return remove.immediate();
    });
  }

  nameOf(token: string): Promise<string | undefined> {
    return this.#do("look up an approver", () => {
      if (!isApproverTokenShape(token) || !this.#tableExists()) return undefined;
      const row = this.#database
        .prepare("SELECT name FROM leash_approvers WHERE token_sha256 = ?")
        .get(approverTokenHash(token)) as { name: string } | undefined;
      return row?.name;
    });
  }

  // Until roles are kept, every person of the registry is an approver.
  rolesOf(name: string): Promise<Role[] | undefined> {
    return this.#do("look up an approver's roles", () => {
      if (!this.#tableExists()) return undefined;
      const row = this.#database.prepare("SELECT 1 FROM leash_approvers WHERE name = ?").get(name);
      return row === undefined ? undefined : ["approver" as const];
    });
  }

  close(): Promise<void> {
    if (this.#database.open) this.#database.close();
    return Promise.resolve();
  }
}

/**
 * Opens the approvers kept in a leash SQLite file. The file must be a leash store already
 * (`db_not_found`, `not_a_database` otherwise): a mistyped path is never made into a new database.
 */
export function openSqliteApprovers(path: string): ApproverRegistry {
  checkExistingSqlite(path);
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    // The store keeps its file in WAL mode already; saying so again writes nothing.
    database.pragma("journal_mode = WAL");
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return new SqliteApprovers(database, path);
  } catch (error) {
    database?.close();
    throw failed(error, "open the approvers", path);
  }
}
