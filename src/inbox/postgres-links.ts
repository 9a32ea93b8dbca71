import { checkPostgresStore } from "../operate/open-postgres.js";
import type { PostgresLocation } from "../operate/open-postgres.js";
import { DEFAULT_POSTGRES_TIMEOUTS, openPool } from "../stores/postgres/open-pool.js";
import { SQLSTATE, sqlState, storeFailed } from "../stores/postgres/postgres-errors.js";
import { inTransaction } from "../stores/postgres/postgres-pool.js";
import type { PostgresClient, PostgresPool } from "../stores/postgres/postgres-pool.js";
import { quoteIdentifier } from "../stores/postgres/postgres-tables.js";
import { isLinkTokenShape, linkOfRow, linkTokenHash, newLinkId, newLinkToken, notAPerson } from "./link-store.js";
import type { LinkInfo, LinkStore, NewLink } from "./link-store.js";

/** The first key of the advisory lock under which the links' table is created ("llnk" in ASCII). */
const CREATE_LOCK = 0x6c6c6e6b;

/** The columns a link is read from. */
const FIELDS = ["id", "name", "run_id", "digest", "step", "created_at", "expires_at", "used_at"];

/** The same, of the link `l` in a join: every lookup joins its person, so a removed person's link is never found. */
const COLUMNS = FIELDS.map((field) => `l.${field}`).join(", ");

function tables(schema: string): { links: string; approvers: string } {
  const quoted = quoteIdentifier(schema);
  return { links: `${quoted}.leash_links`, approvers: `${quoted}.leash_approvers` };
}

/**
 * Deletes a person's links, inside the transaction of the registry's `remove` (after it deleted the
 * person, whose row a link being made holds `FOR SHARE`: so a link made at the same time is either
 * seen here or refused for want of its person).
 */
export async function deletePostgresLinksOf(client: PostgresClient, schema: string, name: string): Promise<void> {
  const { links } = tables(schema);
  const found = await client.query("SELECT to_regclass($1) AS links", [links]);
  if (found.rows[0]?.links === null || found.rows[0]?.links === undefined) return;
  await client.query(`DELETE FROM ${links} WHERE name = $1`, [name]);
}

/** The links of a PostgreSQL store: a table `leash_links` in the store's schema, beside `leash_approvers`. */
class PostgresLinks implements LinkStore {
  readonly #pool: PostgresPool;
  readonly #location: PostgresLocation;
  readonly #now: () => Date;
  readonly #links: string;
  readonly #approvers: string;

  constructor(pool: PostgresPool, location: PostgresLocation, now: () => Date) {
    this.#pool = pool;
    this.#location = location;
    this.#now = now;
    ({ links: this.#links, approvers: this.#approvers } = tables(location.schema));
  }

  /** Runs a read or a spend; a schema without the tables holds no link, and nothing is created. */
  async #query(doing: string, text: string, values: unknown[]): Promise<LinkInfo | undefined> {
    try {
      const result = await this.#pool.query(text, values);
      const row = result.rows[0];
      return row === undefined ? undefined : linkOfRow(row);
    } catch (error) {
      if (sqlState(error) === SQLSTATE.undefinedTable) return undefined;
      throw storeFailed(error, `trying to ${doing} in ${this.#location.label}`);
    }
  }

  async create(link: NewLink): Promise<{ token: string; link: LinkInfo }> {
    const token = newLinkToken();
    const made: LinkInfo = { id: newLinkId(), ...link, createdAt: this.#now().toISOString() };
    const inserted = await inTransaction(this.#pool, `making a link in ${this.#location.label}`, async (client) => {
      const registry = await client.query("SELECT to_regclass($1) AS approvers", [this.#approvers]);
      if (registry.rows[0]?.approvers === null || registry.rows[0]?.approvers === undefined) return false;
      // The person's row is held until the link is written, so a `remove` at the same time waits and
      // then deletes this link too.
      const person = await client.query(`SELECT 1 FROM ${this.#approvers} WHERE name = $1 FOR SHARE`, [made.name]);
      if (person.rows.length === 0) return false;
      // CREATE TABLE IF NOT EXISTS is not safe against itself in two sessions at once: a lock per
      // schema makes the second wait and find the table made.
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATE_LOCK, this.#location.schema]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#links} (id text PRIMARY KEY, token_sha256 text UNIQUE NOT NULL,
          name text NOT NULL, run_id text NOT NULL, digest text NOT NULL, step integer NOT NULL,
          created_at text NOT NULL, expires_at text NOT NULL, used_at text)`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS leash_links_name ON ${this.#links} (name)`);
      await client.query(
        `INSERT INTO ${this.#links} (id, token_sha256, name, run_id, digest, step, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [made.id, linkTokenHash(token), made.name, made.runId, made.digest, made.step, made.createdAt, made.expiresAt],
      );
      return true;
    });
    if (!inserted) throw notAPerson(link.name);
    return { token, link: made };
  }

  async find(token: string): Promise<LinkInfo | undefined> {
    if (!isLinkTokenShape(token)) return undefined;
    return this.#query(
      "look up a link",
      `SELECT ${COLUMNS} FROM ${this.#links} l JOIN ${this.#approvers} a ON a.name = l.name WHERE l.token_sha256 = $1`,
      [linkTokenHash(token)],
    );
  }

  async spend(token: string, now: Date): Promise<LinkInfo | undefined> {
    if (!isLinkTokenShape(token)) return undefined;
    // One statement: of two spends at once, the second waits on the row and finds it spent.
    return this.#query(
      "spend a link",
      `UPDATE ${this.#links} l SET used_at = $2
       WHERE l.token_sha256 = $1 AND l.used_at IS NULL AND l.expires_at > $2
         AND EXISTS (SELECT 1 FROM ${this.#approvers} a WHERE a.name = l.name)
       RETURNING ${COLUMNS}`,
      [linkTokenHash(token), now.toISOString()],
    );
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

/**
 * Opens the links kept in a leash PostgreSQL schema. The schema must hold a leash store already
 * (`db_not_found` otherwise).
 */
export async function openPostgresLinks(location: PostgresLocation, now: () => Date): Promise<LinkStore> {
  await checkPostgresStore(location);
  return new PostgresLinks(openPool(location.db, DEFAULT_POSTGRES_TIMEOUTS), location, now);
}
