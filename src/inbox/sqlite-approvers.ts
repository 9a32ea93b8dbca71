import Database from "better-sqlite3";
import { isLeashError, LeashError } from "../errors/leash-error.js";
import { checkExistingSqlite } from "../operate/open-store.js";
import type { AddApproverOptions, ApproverEntry, ApproverIdentity, ApproverRegistry } from "./approver-registry.js";
import { checkRoles, rolesText, rolesToAdd, storedRoles } from "./approver-roles.js";
import type { Role } from "./approver-roles.js";
import { deleteSqliteLinksOf } from "./sqlite-links.js";
import {
  approverExists,
  approverNotFound,
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
  created_at TEXT NOT NULL,
  roles TEXT
)`;

/** A registry kept before roles lacks the column: added once, and its people read as approvers. */
const ADD_ROLES_COLUMN = "ALTER TABLE leash_approvers ADD COLUMN roles TEXT";

type Row = { name: string; created_at: string; roles?: string | null };

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

  /**
   * Makes the table, and the roles column of a table kept before roles, inside a write transaction:
   * one process at a time holds it, so two that open the same old file add the column once.
   */
  #prepareTable(): void {
    this.#database.exec(CREATE_TABLE);
    const columns = this.#database.prepare("PRAGMA table_info(leash_approvers)").all() as { name: string }[];
    if (!columns.some((column) => column.name === "roles")) this.#database.exec(ADD_ROLES_COLUMN);
  }

  add(name: string, options?: AddApproverOptions): Promise<{ name: string; token: string; roles: Role[] }> {
    return this.#do("add an approver", () => {
      checkApproverName(name);
      const roles = rolesToAdd(options);
      const token = newApproverToken();
      const insert = this.#database.transaction(() => {
        this.#prepareTable();
        return this.#database
          .prepare(
            "INSERT INTO leash_approvers (name, token_sha256, created_at, roles) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
          )
          .run(name, approverTokenHash(token), new Date().toISOString(), rolesText(roles)).changes;
      });
      if (insert.immediate() === 0) throw approverExists(name);
      this.#hasTable = true;
      return { name, token, roles };
    });
  }

  setRoles(name: string, roles: readonly Role[]): Promise<Role[]> {
    return this.#do("change an approver's roles", () => {
      const checked = checkRoles(roles);
      if (!this.#tableExists()) throw approverNotFound(name);
      const update = this.#database.transaction(() => {
        this.#prepareTable();
        return this.#database
          .prepare("UPDATE leash_approvers SET roles = ? WHERE name = ?")
          .run(rolesText(checked), name).changes;
      });
      if (update.immediate() === 0) throw approverNotFound(name);
      return checked;
    });
  }

  rolesOf(name: string): Promise<Role[] | undefined> {
    return this.#do("look up an approver's roles", () => {
      if (!this.#tableExists()) return undefined;
      // `*`: a table kept before roles has no such column, and its people are approvers.
      const row = this.#database.prepare("SELECT * FROM leash_approvers WHERE name = ?").get(name) as Row | undefined;
      return row === undefined ? undefined : storedRoles(row.roles);
    });
  }

  list(): Promise<ApproverEntry[]> {
    return this.#do("list the approvers", () => {
      if (!this.#tableExists()) return [];
      const rows = this.#database.prepare("SELECT * FROM leash_approvers ORDER BY created_at, name").all() as Row[];
      return rows.map((row) => ({ name: row.name, createdAt: row.created_at, roles: storedRoles(row.roles) }));
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

  async nameOf(token: string): Promise<string | undefined> {
    return (await this.whoIs(token))?.name;
  }

  whoIs(token: string): Promise<ApproverIdentity | undefined> {
    return this.#do("look up an approver", () => {
      if (!isApproverTokenShape(token) || !this.#tableExists()) return undefined;
      const row = this.#database
        .prepare("SELECT * FROM leash_approvers WHERE token_sha256 = ?")
        .get(approverTokenHash(token)) as Row | undefined;
      return row === undefined ? undefined : { name: row.name, roles: storedRoles(row.roles) };
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
