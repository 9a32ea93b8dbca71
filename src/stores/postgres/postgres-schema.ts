import { LeashError } from "../../errors/index.js";
import { SQLSTATE, sqlState, storeFailed } from "./postgres-errors.js";
import type { PostgresPool } from "./postgres-pool.js";
import { inTransaction } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";
import { functionDefinitions } from "./postgres-functions.js";
import { budgetFunctionDefinitions } from "./postgres-budget-functions.js";
import { outboxDefinitions } from "./postgres-outbox.js";

/** The schema version this leash writes and reads; recorded in the `leash_meta` table. */
export const POSTGRES_SCHEMA_VERSION = 8;

// The first key of the advisory lock that serializes migrations ("leas" in ASCII); the second is a
// hash of the schema name, so stores in different schemas of one database do not wait on each other.
const MIGRATION_LOCK = 0x6c656173;

/**
 * The migrations, in order: entry n takes a schema from version n to n + 1. A migration is only ever
 * appended here, never changed, because databases in the field ran the old ones.
 */
function migrations(tables: PostgresTables): readonly string[] {
  return [
    // Version 1. States and records are kept as text, not jsonb: jsonb refuses "\u0000" in strings
    // and does not keep the text as written, and the trail must read back exactly what was digested.
    // A run's `state` is its saved form without its steps; each step is a row of `leash_steps`, so
    // that a save writes the steps that changed instead of the whole run (a step with an outcome
    // never changes again). `position` orders `list()` and the whole trail by when rows were written.
    // The key on (run_id, seq) refuses a second writer that tries to extend a run's chain at the same
    // seq. `answer_count` and the lease columns let workers find answered runs without reading states.
    `
    CREATE TABLE ${tables.runs} (
      run_id text PRIMARY KEY,
      position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      status text NOT NULL,
      revision bigint NOT NULL,
      answer_count integer NOT NULL,
      state text NOT NULL,
      leased_by text,
      leased_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX leash_runs_by_status ON ${tables.runs} (status, position);
    CREATE TABLE ${tables.steps} (
      run_id text NOT NULL,
      step_index integer NOT NULL,
      step text NOT NULL,
      PRIMARY KEY (run_id, step_index)
    );
    CREATE TABLE ${tables.audit} (
      run_id text NOT NULL,
      seq bigint NOT NULL,
      position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      record text NOT NULL,
      PRIMARY KEY (run_id, seq)
    );
    `,
    // Version 2. Each record's digest in a plain column, so that the head of a run's chain (where
    // the next record links to) is read without parsing any record in SQL: no record content can make
    // that query fail. Rows written before it have no digest; their head is read from the record's
    // text, parsed outside SQL.
    `
    ALTER TABLE ${tables.audit} ADD COLUMN digest text;
    `,
    // Version 3. An index on run ids in byte order, whatever the database's collation, so that
    // `list({ runIdPrefix })` reads a range of it (the gateway lists the runs of one call this way)
    // instead of every run of a status.
    `
    CREATE INDEX leash_runs_by_id_bytes ON ${tables.runs} (run_id text_pattern_ops);
    `,
    // Version 4. The store is one Merkle log (issue 12): `leaf_index` is a record's place in it, given
    // once by the sequencer under a lock and never changed (NULL until then). Positions of concurrent
    // writers commit out of order, so the sequencer takes the committed rows still NULL, through the
    // partial index on position; the unique partial index on leaf_index refuses an index given twice.
    // `leash_log_nodes` keeps the complete subtrees (level 0: the leaves); `leash_checkpoints` the
    // signed notes, whole.
    `
    ALTER TABLE ${tables.audit} ADD COLUMN leaf_index bigint;
    CREATE UNIQUE INDEX leash_audit_by_leaf ON ${tables.audit} (leaf_index) WHERE leaf_index IS NOT NULL;
    CREATE INDEX leash_audit_unsequenced ON ${tables.audit} (position) WHERE leaf_index IS NULL;
    CREATE TABLE ${tables.logNodes} (
      level integer NOT NULL,
      idx bigint NOT NULL,
      hash bytea NOT NULL,
      PRIMARY KEY (level, idx)
    );
    CREATE TABLE ${tables.checkpoints} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      tree_size bigint NOT NULL,
      note text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    `,
    // Version 5 (issue 18). Each run keeps its summary (the JSON text of `summaryOf`, without its
    // change number), `updated_key` (the state's `updatedAt`, compared in byte order) and
    // `change_number` (from the change sequence, taken in the statement that writes the run), so a
    // listing reads an index and the summaries, never a state. One index per order, with and without
    // the status; the created orders use `position` (the status one from version 1). Rows written
    // before have NULL here until the store fills them in, right after migrating
    // (`postgres-backfill.ts`): the summary is computed by leash, not in SQL. The functions make a
    // create, a save and an answer one statement each (`postgres-functions.ts`).
    `
    CREATE SEQUENCE ${tables.changes};
    ALTER TABLE ${tables.runs} ADD COLUMN summary text, ADD COLUMN updated_key text COLLATE "C", ADD COLUMN change_number bigint;
    CREATE INDEX leash_runs_by_updated ON ${tables.runs} (updated_key, (run_id COLLATE "C"));
    CREATE INDEX leash_runs_by_status_updated ON ${tables.runs} (status, updated_key, (run_id COLLATE "C"));
    CREATE INDEX leash_runs_by_change ON ${tables.runs} (change_number);
    CREATE INDEX leash_runs_unsummarized ON ${tables.runs} (position) WHERE summary IS NULL;
    ${functionDefinitions(tables)}
    `,
    // Version 6. Standing grants (API.md section 16), in the order given. `info` is the grant's JSON
    // as given (its `revoked` set when revoked); `uses` has a column of its own, since a use is a
    // compare-and-set on it, under the row's lock, inside a run's save. `tool_digest` is the tool's
    // declaration the first use pinned: a later use by another declaration is refused.
    `
    CREATE TABLE IF NOT EXISTS ${tables.grants} (
      position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      info text NOT NULL,
      uses integer NOT NULL,
      tool_digest text
    );
    `,
    // Version 7. Shared budgets (API.md section 17), one row per key. Each limit has a column of its
    // own (NULL: no limit), and so does each spend, float8 as the charges are (a money spend is
    // fractional, a charge given back negative; float8 is JavaScript's own arithmetic, so the store
    // decides a limit exactly as the memory store does). A charge is taken by
    // `leash_charge_budget` under the row's lock, in the statement of the run's save that carries it
    // (`leash_save_run_charged`): the save and its charge commit together or not at all, and the
    // charges of every process and machine take turns on the row, so none takes a budget past its
    // limit. A change of limits or a reset is one transaction with its record under `budget:<key>`.
    `
    CREATE TABLE IF NOT EXISTS ${tables.budgets} (
      key text PRIMARY KEY,
      max_cost double precision,
      max_tokens bigint,
      max_tool_calls bigint,
      spent_cost double precision NOT NULL,
      spent_tokens double precision NOT NULL,
      spent_tool_calls double precision NOT NULL
    );
    ${budgetFunctionDefinitions(tables)}
    `,
    // Version 8. The notification outbox (API.md section 19, "Webhooks"), and the functions of a
    // create and a save again, now taking the events the write makes true: see `postgres-outbox.ts`.
    outboxDefinitions(tables),
  ];
}

function newer(tables: PostgresTables, version: number): LeashError {
  return new LeashError(
    "unsupported_version",
    `The PostgreSQL schema \`${tables.schema}\` has leash schema version ${version}; this leash knows up to ${POSTGRES_SCHEMA_VERSION}. Use a newer leash.`,
    { details: { schema: tables.schema, version } },
  );
}

function parseVersion(tables: PostgresTables, value: unknown): number {
  const version = value === undefined ? 0 : Number(value);
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new LeashError(
      "store_failed",
      `The leash schema version recorded in \`${tables.schema}\` is not a version: ${JSON.stringify(value)}.`,
    );
  }
  return version;
}

/** The recorded version, or null when the schema or its meta table does not exist yet. */
async function readVersion(pool: PostgresPool, tables: PostgresTables): Promise<number | null> {
  try {
    const result = await pool.query(`SELECT value FROM ${tables.meta} WHERE key = 'schema_version'`);
    return parseVersion(tables, result.rows[0]?.value);
  } catch (error) {
    const state = sqlState(error);
    if (state === SQLSTATE.undefinedTable || state === SQLSTATE.invalidSchemaName) return null;
    throw storeFailed(error, `reading the leash schema version of \`${tables.schema}\``);
  }
}

/**
 * Brings a schema's leash tables to {@link POSTGRES_SCHEMA_VERSION}, creating the schema and tables on
 * first use. Safe when several processes do it at once: the version is read again under a transaction
 * advisory lock that only one of them holds at a time, so each migration runs once and the others
 * find it done. A schema already current costs one read and takes no lock. A schema from a newer
 * leash is refused (`unsupported_version`) rather than written to.
 */
export async function migrate(pool: PostgresPool, tables: PostgresTables): Promise<void> {
  const before = await readVersion(pool, tables);
  if (before === POSTGRES_SCHEMA_VERSION) return;
  if (before !== null && before > POSTGRES_SCHEMA_VERSION) throw newer(tables, before);
  await inTransaction(pool, `creating the leash tables in \`${tables.schema}\``, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, tables.schema]);
    // CREATE SCHEMA IF NOT EXISTS still needs the CREATE privilege on the database: a role that may
    // only use a schema made for it must not be asked for it.
    const found = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [tables.schema]);
    if (found.rows.length === 0) await client.query(`CREATE SCHEMA ${tables.quotedSchema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.meta} (key text PRIMARY KEY, value text NOT NULL)`);
    const row = await client.query(`SELECT value FROM ${tables.meta} WHERE key = 'schema_version'`);
    const current = parseVersion(tables, row.rows[0]?.value);
    if (current > POSTGRES_SCHEMA_VERSION) throw newer(tables, current);
    const steps = migrations(tables);
    for (let version = current; version < POSTGRES_SCHEMA_VERSION; version++) {
      const migration = steps[version];
      if (migration === undefined)
        throw new LeashError("store_failed", `No migration from leash schema version ${version}.`);
      await client.query(migration);
    }
    await client.query(
      `INSERT INTO ${tables.meta} (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [String(POSTGRES_SCHEMA_VERSION)],
    );
  });
}
