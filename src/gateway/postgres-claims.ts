import { DEFAULT_POSTGRES_TIMEOUTS, openPool } from "../stores/postgres/open-pool.js";
import { quoteIdentifier } from "../stores/postgres/postgres-tables.js";
import type { ClaimsBackend, DriverRow, Holder } from "./gateway-claims.js";

/** The first key of the advisory lock under which the tables are created ("lgwc" in ASCII). */
const CREATE_LOCK = 0x6c677763;

/** The database's clock in milliseconds: every gateway on the store reads the same clock. */
const NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/**
 * The claims of a PostgreSQL store: tables `leash_gateway_drivers`, `leash_gateway_claims` and
 * `leash_gateway_approvals` (who may approve each run) in the store's schema. Heartbeats are stamped and aged by the database's clock, so gateways on hosts whose
 * clocks differ still agree on a heartbeat's age.
 */
export async function postgresClaims(url: string, schema: string): Promise<ClaimsBackend> {
  const pool = openPool(url, DEFAULT_POSTGRES_TIMEOUTS);
  const drivers = `${quoteIdentifier(schema)}.leash_gateway_drivers`;
  const claims = `${quoteIdentifier(schema)}.leash_gateway_claims`;
  const approvals = `${quoteIdentifier(schema)}.leash_gateway_approvals`;
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query("BEGIN");
    // CREATE TABLE IF NOT EXISTS is not safe against itself in two sessions at once: a lock per schema.
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATE_LOCK, schema]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${drivers} (driver text PRIMARY KEY, host text NOT NULL, pidns text NOT NULL, pid integer NOT NULL, beat_at bigint NOT NULL)`,
    );
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${claims} (run_id text PRIMARY KEY, driver text NOT NULL, claimed_at bigint NOT NULL)`,
    );
    await client.query(`CREATE TABLE IF NOT EXISTS ${approvals} (run_id text PRIMARY KEY, approval text NOT NULL)`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    failure = error instanceof Error ? error : new Error("PostgreSQL failed while creating the gateway's claims.");
  } finally {
    client.release();
  }
  // The pool ends only once its connection is back.
  if (failure !== undefined) {
    await pool.end().catch(() => undefined);
    throw failure;
  }
  const changed = async (text: string, values: unknown[]): Promise<boolean> =>
    ((await pool.query(`${text} RETURNING 1`, values)).rows.length ?? 0) === 1;
  return {
    beat: async (row: DriverRow) => {
      await pool.query(
        `INSERT INTO ${drivers} (driver, host, pidns, pid, beat_at) VALUES ($1, $2, $3, $4, ${NOW})
         ON CONFLICT (driver) DO UPDATE SET beat_at = excluded.beat_at`,
        [row.driver, row.host, row.pidns, row.pid],
      );
    },
    forget: async (driver) => void (await pool.query(`DELETE FROM ${drivers} WHERE driver = $1`, [driver])),
    insert: (runId, driver) =>
      changed(
        `INSERT INTO ${claims} (run_id, driver, claimed_at) VALUES ($1, $2, ${NOW}) ON CONFLICT (run_id) DO NOTHING`,
        [runId, driver],
      ),
    holder: async (runId) => {
      const { rows } = await pool.query(
        `SELECT c.driver, d.host, d.pidns, d.pid, ${NOW} - d.beat_at AS age
         FROM ${claims} c LEFT JOIN ${drivers} d ON d.driver = c.driver WHERE c.run_id = $1`,
        [runId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const holder: Holder = { driver: String(row.driver) };
      if (row.host === null) return holder;
      return {
        ...holder,
        row: { driver: holder.driver, host: row.host as string, pidns: row.pidns as string, pid: Number(row.pid) },
        ageMs: Number(row.age),
      };
    },
    swap: (runId, from, to) =>
      changed(`UPDATE ${claims} SET driver = $1, claimed_at = ${NOW} WHERE run_id = $2 AND driver = $3`, [
        to,
        runId,
        from,
      ]),
    release: async (runId, driver) =>
      void (await pool.query(`DELETE FROM ${claims} WHERE run_id = $1 AND driver = $2`, [runId, driver])),
    recordApproval: async (runId, json) =>
      void (await pool.query(
        `INSERT INTO ${approvals} (run_id, approval) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING`,
        [runId, json],
      )),
    close: () => pool.end(),
  };
}
