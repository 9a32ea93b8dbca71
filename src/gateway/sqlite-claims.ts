import Database from "better-sqlite3";
import type { ClaimsBackend, DriverRow, Holder } from "./gateway-claims.js";

/** How long a write waits on another process's transaction on the file, as the store does. */
const BUSY_TIMEOUT_MS = 5000;

const CREATE = `CREATE TABLE IF NOT EXISTS leash_gateway_drivers (
  driver TEXT PRIMARY KEY, host TEXT NOT NULL, pidns TEXT NOT NULL, pid INTEGER NOT NULL, beat_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS leash_gateway_claims (
  run_id TEXT PRIMARY KEY, driver TEXT NOT NULL, claimed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS leash_gateway_approvals (run_id TEXT PRIMARY KEY, approval TEXT NOT NULL)`;

/**
 * The claims of a SQLite store: tables `leash_gateway_drivers`, `leash_gateway_claims` and
 * `leash_gateway_approvals` (who may approve each run) in its file,
 * on a connection of their own. Heartbeats are this host's clock (a SQLite file is on one host).
 */
export function sqliteClaims(path: string): ClaimsBackend {
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  db.pragma("journal_mode = WAL");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec(CREATE);
  const beat = db.prepare(
    `INSERT INTO leash_gateway_drivers (driver, host, pidns, pid, beat_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (driver) DO UPDATE SET beat_at = excluded.beat_at`,
  );
  const insert = db.prepare(
    "INSERT INTO leash_gateway_claims (run_id, driver, claimed_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING",
  );
  const holder = db.prepare(
    `SELECT c.driver AS driver, d.host AS host, d.pidns AS pidns, d.pid AS pid, d.beat_at AS beat_at
     FROM leash_gateway_claims c LEFT JOIN leash_gateway_drivers d ON d.driver = c.driver WHERE c.run_id = ?`,
  );
  const swap = db.prepare("UPDATE leash_gateway_claims SET driver = ?, claimed_at = ? WHERE run_id = ? AND driver = ?");
  const release = db.prepare("DELETE FROM leash_gateway_claims WHERE run_id = ? AND driver = ?");
  const forget = db.prepare("DELETE FROM leash_gateway_drivers WHERE driver = ?");
  const approval = db.prepare(
    "INSERT INTO leash_gateway_approvals (run_id, approval) VALUES (?, ?) ON CONFLICT (run_id) DO NOTHING",
  );
  const attempt = <T>(body: () => T): Promise<T> => {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return {
    beat: (row: DriverRow) => attempt(() => void beat.run(row.driver, row.host, row.pidns, row.pid, Date.now())),
    forget: (driver) => attempt(() => void forget.run(driver)),
    insert: (runId, driver) => attempt(() => insert.run(runId, driver, Date.now()).changes === 1),
    holder: (runId) =>
      attempt((): Holder | undefined => {
        const row = holder.get(runId) as
          { driver: string; host: string | null; pidns: string; pid: number; beat_at: number } | undefined;
        if (row === undefined) return undefined;
        if (row.host === null) return { driver: row.driver };
        return {
          driver: row.driver,
          row: { driver: row.driver, host: row.host, pidns: row.pidns, pid: row.pid },
          ageMs: Date.now() - row.beat_at,
        };
      }),
    swap: (runId, from, to) => attempt(() => swap.run(to, Date.now(), runId, from).changes === 1),
    release: (runId, driver) => attempt(() => void release.run(runId, driver)),
    recordApproval: (runId, json) => attempt(() => void approval.run(runId, json)),
    close: () => attempt(() => void (db.open ? db.close() : undefined)),
  };
}
