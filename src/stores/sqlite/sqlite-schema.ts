import type { Database } from "better-sqlite3";
import { LeashError } from "../../errors/index.js";
import { SQLITE_SCHEMA_VERSION } from "./sqlite-schema-version.js";

/**
 * The migrations, in order: entry n takes a database from schema version n to n + 1. A migration is
 * only ever appended here, never changed, because databases in the field ran the old ones. Exported
 * for the tests that build a file of an older version with the migrations it ran. @internal
 */
export const MIGRATIONS: readonly string[] = [
  // Version 1. `position` orders `list()` and the whole trail by when rows were written; it is an
  // explicit column because a VACUUM may renumber implicit rowids. A run's `state` is its saved form
  // without its steps; each step is a row of `steps`, so that a save writes the steps that changed
  // instead of the whole run (a step with an outcome never changes again). `steps` is WITHOUT ROWID:
  // its key is the only way it is read, and one b-tree is one page fewer written per save. In
  // `audit`, the key on (run_id, seq) is what refuses a second writer that tries to extend a run's
  // chain at the same seq.
  `
  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY NOT NULL,
    position INTEGER NOT NULL UNIQUE,
    status TEXT NOT NULL,
    revision INTEGER NOT NULL,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX runs_by_status ON runs (status, position);
  CREATE TABLE steps (
    run_id TEXT NOT NULL,
    step_index INTEGER NOT NULL,
    step TEXT NOT NULL,
    PRIMARY KEY (run_id, step_index)
  ) WITHOUT ROWID;
  CREATE TABLE audit (
    position INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (run_id, seq)
  );
  `,
  // Version 2. Each record's digest in a plain column, so that the head of a run's chain (where the
  // next record links to) is read without parsing any record in SQL: no record content (JSON nested
  // past SQLite's JSON depth, say) can make that query fail. Rows written before it have no digest;
  // their head is read from the record's text, parsed outside SQL.
  `
  ALTER TABLE audit ADD COLUMN digest TEXT;
  `,
  // Version 3. The store is one Merkle log (issue 12): `leaf_index` is a record's place in it, given
  // once by the sequencer and never changed (NULL until then; a migrated database's records are
  // sequenced in `position` order). The index is partial, so a step's insert (NULL) writes no entry
  // to it, and unique, so no index is ever given twice. `leash_log_nodes` keeps the complete subtrees
  // (level 0: the leaves) that a root or a proof reads; `leash_checkpoints` the signed notes, whole.
  `
  ALTER TABLE audit ADD COLUMN leaf_index INTEGER;
  CREATE UNIQUE INDEX audit_by_leaf ON audit (leaf_index) WHERE leaf_index IS NOT NULL;
  CREATE TABLE leash_log_nodes (
    level INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (level, idx)
  ) WITHOUT ROWID;
  CREATE TABLE leash_checkpoints (
    id INTEGER PRIMARY KEY,
    tree_size INTEGER NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
  // Version 4. Listings read summaries, not runs (issue 18). `summary` is the JSON of the run's
  // summary without its `change`, which has a column of its own, indexed, so that `changedSince` is a
  // range. A row from before this version has no summary (NULL) until the store fills it, in bounded
  // batches after opening; a listing meanwhile computes it from the states of the rows it returns.
  // Adding the columns rewrites no row, so a large file migrates in the time the indexes take. A row
  // from before this version counts as changed at 1, the counter's first value, so `changedSince: 0`
  // still finds every run. `leash_changes` is the change sequence: one row, bumped in the
  // transaction of each create and save (an answer is a save). The orders' indexes: `position` has
  // its UNIQUE key's, (status, position) is version 1's, and the updated orders' are here.
  // `runs_without_summary` is partial: it holds only the rows still to fill, so a row written since
  // costs it nothing, and an open sees in one look that nothing is left to fill.
  `
  ALTER TABLE runs ADD COLUMN summary TEXT;
  ALTER TABLE runs ADD COLUMN change INTEGER NOT NULL DEFAULT 1;
  CREATE TABLE leash_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
  );
  INSERT INTO leash_changes (id, value) SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM runs) THEN 1 ELSE 0 END;
  CREATE INDEX runs_by_updated ON runs (updated_at, run_id);
  CREATE INDEX runs_by_status_updated ON runs (status, updated_at, run_id);
  CREATE INDEX runs_by_change ON runs (change);
  CREATE INDEX runs_without_summary ON runs (position) WHERE summary IS NULL;
  `,
  // Version 5. Standing grants (API.md section 16), in the order given. `info` is the grant's JSON as
  // given (its `revoked` set when revoked); `uses` has a column of its own, since a use is a
  // compare-and-set on it inside a run's save. `tool_digest` is the tool's declaration the first use
  // pinned: a later use by another declaration is refused.
  `
  CREATE TABLE IF NOT EXISTS leash_grants (
    position INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    info TEXT NOT NULL,
    uses INTEGER NOT NULL,
    tool_digest TEXT
  );
  `,
  // Version 6. Shared budgets (API.md section 17), one row per key. Each limit has a column of its
  // own (NULL: no limit), and so does each spend: a charge is a read and a write of this row inside
  // the savepoint of the run's save that carries it, under the batch's write lock, so a refused
  // charge rolls that save back alone, the saves after it in the batch see the spend it took, and
  // no process takes a budget past its limit. Spends are REAL, as the charges are (a money spend is
  // fractional, and a charge given back is negative); they never go below zero. A change of limits
  // or a reset is one write with its record under the run id `budget:<key>`. WITHOUT ROWID: the key
  // is the only way a row is read.
  `
  CREATE TABLE IF NOT EXISTS leash_budgets (
    key TEXT PRIMARY KEY NOT NULL,
    max_cost REAL,
    max_tokens INTEGER,
    max_tool_calls INTEGER,
    spent_cost REAL NOT NULL,
    spent_tokens REAL NOT NULL,
    spent_tool_calls REAL NOT NULL
  ) WITHOUT ROWID;
  `,
  // Version 7. The notification outbox (API.md section 19, "Webhooks"): the events a save made true
  // (a request a run awaits, its end, work that gave up), inserted in that save's savepoint, at most
  // one per (run_id, type, key) whatever the saves after. `position` is the order written (the
  // listing's order and cursor; AUTOINCREMENT so that a pruned position is never given again). Times
  // are ISO 8601 text, which compares as time. A deliverer claims the due pending events through
  // `leash_outbox_due`; a listing of one status reads `leash_outbox_by_status`. Runs paused before
  // this version have no event: the inbox still lists them.
  `
  CREATE TABLE IF NOT EXISTS leash_outbox (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT,
    last_error TEXT,
    delivered_at TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (run_id, type, key)
  );
  CREATE INDEX IF NOT EXISTS leash_outbox_due ON leash_outbox (status, next_attempt_at);
  CREATE INDEX IF NOT EXISTS leash_outbox_by_status ON leash_outbox (status, position);
  `,
];

/**
 * The log size, in pages, at which SQLite checkpoints inside a commit. The store checkpoints itself
 * outside its saves (`SqliteCheckpoints`: before a create, from a timer, at close), so this only
 * bounds the log of one long run in a process that never lets a timer run (its tools do no I/O). A
 * step of a 1000-step run logs about 14 pages, so 16384 pages (64 MiB at the default 4 KiB page) let
 * such a run through without a checkpoint inside it.
 */
const WAL_AUTOCHECKPOINT_PAGES = 16384;

/** The connection's page cache, in KiB: 32 MiB. */
const CACHE_KIB = 32768;

/**
 * What the log's file is cut back to, in bytes, when the log starts over after a checkpoint, so that
 * a burst that grew it past this does not hold the disk space until the store closes. As large as
 * the log may grow, so that the file of a log that has grown once is rewritten, not extended again.
 */
const WAL_SIZE_LIMIT_BYTES = WAL_AUTOCHECKPOINT_PAGES * 4096;

function storedVersion(database: Database): number {
  const table = database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leash_meta'").get();
  if (table === undefined) return 0;
  const row = database.prepare("SELECT value FROM leash_meta WHERE key = 'schema_version'").get() as
    { value: unknown } | undefined;
  const version = row === undefined ? 0 : Number(row.value);
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new LeashError(
      "store_failed",
      `The leash schema version recorded in the database is not a version: ${JSON.stringify(row?.value)}.`,
    );
  }
  return version;
}

/**
 * Brings a database's leash tables to {@link SQLITE_SCHEMA_VERSION}, creating them on first use.
 * Safe when several processes open the same new file at once: the version is read again inside a
 * `BEGIN IMMEDIATE` transaction, which only one process holds at a time, so each migration runs
 * exactly once and the others find it done. A database already current costs one read and no write.
 * A database from a newer leash is refused (`unsupported_version`) rather than written to.
 */
export function migrate(database: Database, path: string): void {
  const newer = (version: number): LeashError =>
    new LeashError(
      "unsupported_version",
      `The SQLite database \`${path}\` has leash schema version ${version}; this leash knows up to ${SQLITE_SCHEMA_VERSION}. Open it with a newer leash.`,
      { details: { path, version } },
    );
  const before = storedVersion(database);
  if (before === SQLITE_SCHEMA_VERSION) return;
  if (before > SQLITE_SCHEMA_VERSION) throw newer(before);
  database
    .transaction(() => {
      database.exec("CREATE TABLE IF NOT EXISTS leash_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)");
      const current = storedVersion(database);
      if (current > SQLITE_SCHEMA_VERSION) throw newer(current);
      for (let version = current; version < SQLITE_SCHEMA_VERSION; version++) {
        const migration = MIGRATIONS[version];
        if (migration === undefined)
          throw new LeashError("store_failed", `No migration from leash schema version ${version}.`);
        database.exec(migration);
      }
      database
        .prepare(
          "INSERT INTO leash_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .run(String(SQLITE_SCHEMA_VERSION));
    })
    .immediate();
}

/**
 * Sets the connection up for durability: write-ahead logging (readers never block the writer, and a
 * commit is one append to the log), `synchronous=FULL` (each commit is fsynced before it returns, so a
 * save that resolved survives a power loss, not only a process crash), and the busy timeout within
 * which a writer waits for another process's transaction instead of failing at once. SQLite's own
 * checkpoints are pushed far out, because the store runs its own outside the saves.
 */
export function configure(database: Database, busyTimeoutMs: number): void {
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (!database.memory) {
    // Switching to WAL needs a moment of exclusive access; a process that opens the file while
    // another is switching it waits on the busy timeout. The mode is stored in the file, so once
    // any process has set it every later open finds it set.
    const mode = database.pragma("journal_mode = WAL", { simple: true });
    if (mode !== "wal") {
      throw new LeashError(
        "store_failed",
        `The SQLite database \`${database.name}\` could not be put in WAL mode (it is in ${String(mode)} mode).`,
      );
    }
  }
  database.pragma("synchronous = FULL");
  // A batch of writes touches the row, step, audit and index pages of hundreds of runs; with
  // SQLite's default cache (2 MiB) most of them are read again from the file for each batch. A
  // larger cache (pages are taken only as used) cut the time in batches by about a quarter.
  database.pragma(`cache_size = -${CACHE_KIB}`);
  if (!database.memory) {
    database.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  }
}
