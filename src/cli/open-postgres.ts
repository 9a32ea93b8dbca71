import type { AuditSink, RunStore } from "../index.js";
import type { PostgresPool } from "../stores/postgres/index.js";
import { CliError, EXIT_FAILURE } from "./cli-error.js";
import type { StoreLocation } from "./common-options.js";

/** How long the command line waits for a PostgreSQL connection before it says it cannot reach the server. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The parts of `pg` the command line uses. */
interface PgModule {
  Pool: new (options: { connectionString: string; connectionTimeoutMillis: number; max: number }) => PgPool;
  escapeIdentifier(name: string): string;
}

interface PgPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  connect(): Promise<unknown>;
  end(): Promise<void>;
  on(event: "error", listener: () => void): unknown;
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    message.includes(`'${name}'`)
  );
}

/** `pg`, an optional peer of leash, or a clear error saying how to install it. */
async function loadPg(): Promise<PgModule> {
  try {
    const module = (await import("pg")) as { default?: PgModule } & PgModule;
    return module.default ?? module;
  } catch (error) {
    if (!isMissing(error, "pg")) throw error;
    throw new CliError(
      "pg_not_installed",
      "--db names a PostgreSQL database, but the PostgreSQL driver is not installed: it is an optional peer of leash; install it beside leash with `npm install pg`.",
    );
  }
}

/** Whether the schema holds leash's tables, asked without creating anything. */
async function holdsLeashTables(pool: PgPool, pg: PgModule, schema: string): Promise<boolean> {
  const result = await pool.query("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${pg.escapeIdentifier(schema)}.leash_meta`,
  ]);
  return result.rows[0]?.present === true;
}

/**
 * Opens the `PostgresStore` of an existing PostgreSQL schema. The schema must hold leash's tables
 * already: `PostgresStore` creates them on first use, which a command that reads must not do at a
 * mistyped schema. The driver and the store are loaded only here, so that SQLite users need no `pg`.
 */
export async function openPostgresStore(
  location: Extract<StoreLocation, { kind: "postgres" }>,
): Promise<RunStore & AuditSink> {
  const pg = await loadPg();
  const pool = new pg.Pool({ connectionString: location.db, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: 4 });
  // An idle connection the server drops makes the pool emit `error`; unheard, it would end the process.
  pool.on("error", () => undefined);
  let present: boolean;
  try {
    present = await holdsLeashTables(pool, pg, location.schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new CliError(
      "store_failed",
      `Could not read the PostgreSQL database ${location.label}: ${(error as Error).message}`,
      EXIT_FAILURE,
    );
  }
  if (!present) {
    await pool.end().catch(() => undefined);
    throw new CliError(
      "db_not_found",
      `There is no leash store in ${location.label}: its schema holds no leash tables; give the schema of your runs with --schema NAME.`,
    );
  }
  const { PostgresStore } = await import("../stores/postgres/index.js");
  // `pg`'s Pool is the PostgresPool the store takes; the narrow PgPool above only spares a type import.
  const store = new PostgresStore({ pool: pool as unknown as PostgresPool, schema: location.schema });
  // The store does not end a pool it was given: closing it ends the pool too.
  const close = store.close.bind(store);
  store.close = async () => {
    try {
      await close();
    } finally {
      await pool.end();
    }
  };
  return store;
}
