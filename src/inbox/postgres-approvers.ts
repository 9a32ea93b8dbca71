import { isLeashError, LeashError } from "../errors/leash-error.js";
import { checkPostgresStore } from "../operate/open-postgres.js";
import type { PostgresLocation } from "../operate/open-postgres.js";
import { DEFAULT_POSTGRES_TIMEOUTS, openPool } from "../stores/postgres/open-pool.js";
import { SQLSTATE, sqlState } from "../stores/postgres/postgres-errors.js";
import type { PostgresClient, PostgresPool } from "../stores/postgres/postgres-pool.js";
import { quoteIdentifier } from "../stores/postgres/postgres-tables.js";
import type { AddApproverOptions, ApproverEntry, ApproverIdentity, ApproverRegistry } from "./approver-registry.js";
import { checkRoles, rolesText, rolesToAdd, storedRoles } from "./approver-roles.js";
import type { Role } from "./approver-roles.js";
import { deletePostgresLinksOf } from "./postgres-links.js";
import { inTransaction } from "../stores/postgres/postgres-pool.js";
import {
  approverExists,
  approverNotFound,
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

  /**
   * Runs `body` in a transaction that holds the registry's lock for this schema, with the table
   * made and, in a table kept before roles, its `roles` column added: `CREATE TABLE IF NOT EXISTS`
   * and `ADD COLUMN IF NOT EXISTS` are not safe against themselves in two sessions at once (both may
   * try to create the same catalog rows), so the lock makes the second wait and find them made.
   */
  async #write<T>(doing: string, body: (client: PostgresClient) => Promise<T>): Promise<T> {
    try {
      const client = await this.#pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATE_LOCK, this.#location.schema]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.#table} (name text PRIMARY KEY, token_sha256 text UNIQUE NOT NULL, created_at text NOT NULL, roles text)`,
        );
        const column = await client.query(
          "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'leash_approvers' AND column_name = 'roles'",
          [this.#location.schema],
        );
        if (column.rows.length === 0)
          await client.query(`ALTER TABLE ${this.#table} ADD COLUMN IF NOT EXISTS roles text`);
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    } catch (error) {
      throw failed(error, doing, this.#location);
    }
  }

  async add(name: string, options?: AddApproverOptions): Promise<{ name: string; token: string; roles: Role[] }> {
    checkApproverName(name);
    const roles = rolesToAdd(options);
    const token = newApproverToken();
    const added = await this.#write("add an approver", async (client) => {
      const result = await client.query(
        `INSERT INTO ${this.#table} (name, token_sha256, created_at, roles) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
        [name, approverTokenHash(token), new Date().toISOString(), rolesText(roles)],
      );
      return result.rowCount === 1;
    });
    if (!added) throw approverExists(name);
    return { name, token, roles };
  }

  async setRoles(name: string, roles: readonly Role[]): Promise<Role[]> {
    const checked = checkRoles(roles);
    // A schema without the table holds nobody: nothing is created for a name that is not there.
    if ((await this.rolesOf(name)) === undefined) throw approverNotFound(name);
    const changed = await this.#write("change an approver's roles", async (client) => {
      const result = await client.query(`UPDATE ${this.#table} SET roles = $1 WHERE name = $2`, [
        rolesText(checked),
        name,
      ]);
      return result.rowCount === 1;
    });
    if (!changed) throw approverNotFound(name);
    return checked;
  }

  rolesOf(name: string): Promise<Role[] | undefined> {
    // `*`: a table kept before roles has no such column, and its people are approvers.
    return this.#read(
      "look up an approver's roles",
      `SELECT * FROM ${this.#table} WHERE name = $1`,
      [name],
      undefined,
      (rows) => (rows[0] === undefined ? undefined : storedRoles(rows[0].roles)),
    );
  }

  list(): Promise<ApproverEntry[]> {
    return this.#read("list the approvers", `SELECT * FROM ${this.#table} ORDER BY created_at, name`, [], [], (rows) =>
      rows.map((row) => ({ name: String(row.name), createdAt: String(row.created_at), roles: storedRoles(row.roles) })),
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
    return (await this.whoIs(token))?.name;
  }

  async whoIs(token: string): Promise<ApproverIdentity | undefined> {
    if (!isApproverTokenShape(token)) return undefined;
    return this.#read(
      "look up an approver",
      `SELECT * FROM ${this.#table} WHERE token_sha256 = $1`,
      [approverTokenHash(token)],
      undefined,
      (rows) => (rows[0] === undefined ? undefined : { name: String(rows[0].name), roles: storedRoles(rows[0].roles) }),
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
