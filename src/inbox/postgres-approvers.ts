import { isLeashError, LeashError } from "../index.js";
import { checkPostgresStore } from "../operate/open-postgres.js";
import type { PostgresLocation } from "../operate/open-postgres.js";
import { DEFAULT_POSTGRES_TIMEOUTS, openPool } from "../stores/postgres/open-pool.js";
import { SQLSTATE, sqlState } from "../stores/postgres/postgres-errors.js";
import type { PostgresPool } from "../stores/postgres/postgres-pool.js";
import { quoteIdentifier } from "../stores/postgres/postgres-tables.js";
import type { ApproverEntry, ApproverRegistry } from "./approver-registry.js";
import type { Role } from "./role-allows.js";
import { deletePostgresLinksOf } from "./postgres-links.js";
import { inTransaction } from "../stores/postgres/postgres-pool.js";
import {
  approverExists,
  approverTokenHash,
  checkApproverName,
  isApproverTokenShape,
  newApproverToken,
} from "./approver-token.js";

/** The first key of the advisory lock under which the table is created ("lapr" in ASCII). */
const CREATE_LOCK = 0x6c617072;

function failed(error: unknown, doing: string, location: PostgresLocation): LeashError {
  if (isLeashError(error)) return error;
  return new LeashError(
    "store_failed",
    `PostgreSQL failed while trying to ${doing} in ${location.label}: ${(error as Error).message}`,
  );
}

/** The approvers of a PostgreSQL store: a table `leash_approvers` in the store's schema. */
class PostgresApprovers implements ApproverRegistry {
  readonly #pool: PostgresPool;
  readonly #location: PostgresLocation;
  readonly #table: string;

  constructor(pool: PostgresPool, location: PostgresLocation) {
    this.#pool = pool;
    this.#location = location;
    this.#table = `${quoteIdentifier(location.schema)}.leash_approvers`;
  }

  /** Runs a read; a schema without the table reads as an empty registry, and nothing is created. */
  async #read<T>(
    doing: string,
    text: string,
    values: unknown[],
    empty: T,
    body: (rows: Record<string, unknown>[]) => T,
  ) {
    try {
      const result = await this.#pool.query(text, values);
      return body(result.rows);
    } catch (error) {
      if (sqlState(error) === SQLSTATE.undefinedTable) return empty;
      throw failed(error, doing, this.#location);
    }
  }

  async add(name: string): Promise<{ name: string; token: string }> {
    checkApproverName(name);
    const token = newApproverToken();
    let added: boolean;
    try {
      const client = await this.#pool.connect();
      try {
        await client.query("BEGIN");
        // CREATE TABLE IF NOT EXISTS is not safe against itself in two sessions at once (both may
        // try to create the table's type); a lock per schema makes the second wait and find it made.
        await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATE_LOCK, this.#location.schema]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.#table} (name text PRIMARY KEY, token_sha256 text UNIQUE NOT NULL, created_at text NOT NULL)`,
        );
        const result = await client.query(
          `INSERT INTO ${this.#table} (name, token_sha256, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
          [name, approverTokenHash(token), new Date().toISOString()],
        );
        await client.query("COMMIT");
        added = result.rowCount === 1;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    } catch (error) {
      throw failed(error, "add an approver", this.#location);
    }
    if (!added) throw approverExists(name);
    return { name, token };
  }

  list(): Promise<ApproverEntry[]> {
    return this.#read(
      "list the approvers",
      `SELECT name, created_at FROM ${this.#table} ORDER BY created_at, name`,
      [],
      [],
      (rows) => rows.map((row) => ({ name: String(row.name), createdAt: String(row.created_at) })),
    );
  }

  async remove(name: string): Promise<boolean> {
    try {
      // Their one-time links go with them, in the same transaction.
      return await inTransaction(this.#pool, "removing an approver", async (client) => {
        const removed = await client.query(`DELETE FROM ${this.#table} WHERE name = $1 RETURNING name`, [name]);
        await deletePostgresLinksOf(client, this.#location.schema, name);
        return removed.rows.length > 0;
      });
    } catch (error) {
      if (isLeashError(error) && error.details.sqlState === SQLSTATE.undefinedTable) return false;
      throw failed(error, "remove an approver", this.#location);
    }
  }

  async nameOf(token: string): Promise<string | undefined> {
    if (!isApproverTokenShape(token)) return undefined;
    return this.#read(
      "look up an approver",
      `SELECT name FROM ${this.#table} WHERE token_sha256 = $1`,
      [approverTokenHash(token)],
      undefined,
      (rows) => (rows[0] === undefined ? undefined : String(rows[0].name)),
    );
  }

  // Until roles are kept, every person of the registry is an approver.
  rolesOf(name: string): Promise<Role[] | undefined> {
    return this.#read(
      "look up an approver's roles",
      `SELECT 1 FROM ${this.#table} WHERE name = $1`,
      [name],
      undefined,
      (rows): Role[] | undefined => (rows.length === 0 ? undefined : ["approver"]),
    );
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

/**
 * Opens the approvers kept in a leash PostgreSQL schema. The schema must hold a leash store already
 * (`db_not_found` otherwise), so that a mistyped `--schema` is never filled with a new table.
 */
export async function openPostgresApprovers(location: PostgresLocation): Promise<ApproverRegistry> {
  await checkPostgresStore(location);
  return new PostgresApprovers(openPool(location.db, DEFAULT_POSTGRES_TIMEOUTS), location);
}
