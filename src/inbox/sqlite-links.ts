import Database from "better-sqlite3";
import { isLeashError, LeashError } from "../errors/leash-error.js";
import { checkExistingSqlite } from "../operate/open-store.js";
import { isLinkTokenShape, linkOfRow, linkTokenHash, newLinkId, newLinkToken, notAPerson } from "./link-store.js";
import type { LinkInfo, LinkStore, NewLink } from "./link-store.js";

/** How long a write waits on another process's transaction on the file, as the store does. */
const BUSY_TIMEOUT_MS = 5000;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS leash_links (
  id TEXT PRIMARY KEY,
  token_sha256 TEXT UNIQUE NOT NULL,
  name TEXT NOT NULL,
  run_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  step INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
)`;

const CREATE_INDEX = "CREATE INDEX IF NOT EXISTS leash_links_name ON leash_links (name)";

/** The columns a link is read from. */
const FIELDS = ["id", "name", "run_id", "digest", "step", "created_at", "expires_at", "used_at"];

/** The same, of the link `l` in a join: every lookup joins its person, so a removed person's link is never found. */
const COLUMNS = FIELDS.map((field) => `l.${field}`).join(", ");

function tableExists(database: Database.Database, name: string): boolean {
  return database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Deletes a person's links, inside the transaction of the registry's `remove`, so that removing them
 * and revoking their links is one change.
 */
export function deleteSqliteLinksOf(database: Database.Database, name: string): void {
  if (tableExists(database, "leash_links")) database.prepare("DELETE FROM leash_links WHERE name = ?").run(name);
}

function failed(error: unknown, doing: string, path: string): LeashError {
  if (isLeashError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const busy = typeof code === "string" && code.startsWith("SQLITE_BUSY");
  return new LeashError(
    busy ? "store_busy" : "store_failed",
    `Could not ${doing} in ${path}: ${(error as Error).message}`,
  );
}

/** The links of a SQLite store: a table `leash_links` in its file, beside `leash_approvers`. */
class SqliteLinks implements LinkStore {
  readonly #database: Database.Database;
  readonly #path: string;
  readonly #now: () => Date;

  constructor(database: Database.Database, path: string, now: () => Date) {
    this.#database = database;
    this.#path = path;
    this.#now = now;
  }

  #do<T>(doing: string, body: () => T): Promise<T> {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(failed(error, doing, this.#path));
    }
  }

  /** Whether both tables a lookup reads exist; until a link is made, none is found and nothing is created. */
  #readable(): boolean {
    return tableExists(this.#database, "leash_links") && tableExists(this.#database, "leash_approvers");
  }

  create(link: NewLink): Promise<{ token: string; link: LinkInfo }> {
    return this.#do("make a link", () => {
      const token = newLinkToken();
      const made: LinkInfo = { id: newLinkId(), ...link, createdAt: this.#now().toISOString() };
      // One writer at a time on the file: the person is looked for and the link written in one
      // transaction, so a `remove` cannot come between them.
      const insert = this.#database.transaction(() => {
        if (!tableExists(this.#database, "leash_approvers")) return 0;
        this.#database.exec(CREATE_TABLE);
        this.#database.exec(CREATE_INDEX);
        return this.#database
          .prepare(
            `INSERT INTO leash_links (id, token_sha256, name, run_id, digest, step, created_at, expires_at)
             SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM leash_approvers WHERE name = ?)`,
          )
          .run(
            made.id,
            linkTokenHash(token),
            made.name,
            made.runId,
            made.digest,
            made.step,
            made.createdAt,
            made.expiresAt,
            made.name,
          ).changes;
      });
      if (insert.immediate() === 0) throw notAPerson(link.name);
      return { token, link: made };
    });
  }

  find(token: string): Promise<LinkInfo | undefined> {
    return this.#do("look up a link", () => {
      if (!isLinkTokenShape(token) || !this.#readable()) return undefined;
      const row = this.#database
        .prepare(
          `SELECT ${COLUMNS} FROM leash_links l JOIN leash_approvers a ON a.name = l.name WHERE l.token_sha256 = ?`,
        )
        .get(linkTokenHash(token)) as Record<string, unknown> | undefined;
      return row === undefined ? undefined : linkOfRow(row);
    });
  }

  spend(token: string, now: Date): Promise<LinkInfo | undefined> {
    return this.#do("spend a link", () => {
      if (!isLinkTokenShape(token) || !this.#readable()) return undefined;
      const at = now.toISOString();
      const row = this.#database
        .prepare(
          `UPDATE leash_links SET used_at = ?
           WHERE token_sha256 = ? AND used_at IS NULL AND expires_at > ?
             AND EXISTS (SELECT 1 FROM leash_approvers a WHERE a.name = leash_links.name)
           RETURNING ${FIELDS.join(", ")}`,
        )
        .get(at, linkTokenHash(token), at) as Record<string, unknown> | undefined;
      return row === undefined ? undefined : linkOfRow(row);
    });
  }

  close(): Promise<void> {
    if (this.#database.open) this.#database.close();
    return Promise.resolve();
  }
}

/**
 * Opens the links kept in a leash SQLite file. The file must be a leash store already
 * (`db_not_found`, `not_a_database` otherwise).
 */
export function openSqliteLinks(path: string, now: () => Date): LinkStore {
  checkExistingSqlite(path);
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    database.pragma("journal_mode = WAL");
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return new SqliteLinks(database, path, now);
  } catch (error) {
    database?.close();
    throw failed(error, "open the links", path);
  }
}
