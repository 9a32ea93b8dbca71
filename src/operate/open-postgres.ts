import { LeashError } from "../errors/leash-error.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { RunStore } from "../stores/run-store.js";
import type { StoreLocation } from "./store-location.js";

/** How long the command line waits for a PostgreSQL connection before it says it cannot reach the server. */
const CONNECT_TIMEOUT_MS = 10_000;

/** How long it waits for the answer to its look at the schema. */
const QUERY_TIMEOUT_MS = 30_000;

/** The parts of `pg` the command line uses. */
interface PgModule {
  Client: new (options: {
    connectionString: string;
    connectionTimeoutMillis: number;
    query_timeout: number;
  }) => PgClient;
  escapeIdentifier(name: string): string;
}

interface PgClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
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
    throw new LeashError(
      "pg_not_installed",
      "--db names a PostgreSQL database, but the PostgreSQL driver is not installed: it is an optional peer of leash; install it beside leash with `npm install pg`.",
    );
  }
}

/**
 * Whether the schema holds leash's tables, asked on a connection of its own and without creating
 * anything. A database that cannot be reached is `store_failed` (exit 1).
 */
async function holdsLeashTables(pg: PgModule, location: PostgresLocation): Promise<boolean> {
  const client = new pg.Client({
    connectionString: location.db,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // A connection the server drops makes the client emit `error`; unheard, it would end the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
    const result = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
      `${pg.escapeIdentifier(location.schema)}.leash_meta`,
    ]);
    return result.rows[0]?.present === true;
  } catch (error) {
    throw new LeashError(
      "store_failed",
      `Could not read the PostgreSQL database ${location.label}: ${(error as Error).message}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A store location that names a PostgreSQL database and schema. */
export type PostgresLocation = Extract<StoreLocation, { kind: "postgres" }>;

/**
 * Checks that `pg` is installed and that the schema holds leash's tables, creating nothing: a schema
 * without them is `db_not_found`, a database that cannot be reached `store_failed`.
 */
export async function checkPostgresStore(location: PostgresLocation): Promise<void> {
  const pg = await loadPg();
  if (!(await holdsLeashTables(pg, location))) {
    throw new LeashError(
      "db_not_found",
      `There is no leash store in ${location.label}: its schema holds no leash tables; give the schema of your runs with --schema NAME.`,
    );
  }
}

/**
 * Opens the `PostgresStore` of an existing PostgreSQL schema. The schema must hold leash's tables
 * already: `PostgresStore` creates them on first use, which a command that reads must not do at a
 * mistyped schema. The driver and the store are loaded only here, so that SQLite users need no `pg`.
 */
export async function openPostgresStore(location: PostgresLocation): Promise<RunStore & AuditSink> {
  await checkPostgresStore(location);
  const { PostgresStore } = await import("../stores/postgres/index.js");
  return new PostgresStore({ connectionString: location.db, schema: location.schema });
}
