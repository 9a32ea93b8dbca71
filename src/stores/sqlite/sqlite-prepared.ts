import Database from "better-sqlite3";
import { StateError } from "../../errors/index.js";
import type { StoreEvidenceLog } from "../../evidence/store-evidence-log.js";
import { SqliteChangeSequence } from "./sqlite-change-sequence.js";
import { SqliteCheckpoints } from "./sqlite-checkpoints.js";
import { isBusy, toLeashError } from "./sqlite-errors.js";
import type { SqliteOperation } from "./sqlite-errors.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteListing } from "./sqlite-listing.js";
import type { RecordWrite, RunWrite } from "./sqlite-run-write.js";
import { SqliteRuns } from "./sqlite-runs.js";
import { configure, migrate } from "./sqlite-schema.js";
import { SqliteSummaryFill } from "./sqlite-summary-fill.js";
import { SqliteTrail } from "./sqlite-trail.js";
import { SqliteGrants } from "./sqlite-grants.js";
import type { GrantUse } from "../grant-info.js";
import { SqliteBudgets } from "./sqlite-budgets.js";
import type { BudgetCharge } from "../budget-info.js";
import { SqliteOutbox } from "./sqlite-outbox.js";

/** What a write or a read of a store is, for the error of a failure. */
type StoreOperation = Omit<SqliteOperation, "path">;

/** Runs a read on the store's prepared statements (how the grants' and budgets' writers read). @internal */
export type StoreReader = <T>(operation: StoreOperation, body: (prepared: Prepared) => T) => Promise<T>;

/** Queues a write for the store's batches: its statements, and what follows its commit. @internal */
export type StoreWriter = (
  operation: StoreOperation,
  plan: () => { apply: (prepared: Prepared) => void; committed: () => void },
) => Promise<void>;

/** The statements, tables and batches of an open store, prepared once. @internal */
export interface Prepared {
  database: Database.Database;
  runs: SqliteRuns;
  changes: SqliteChangeSequence;
  trail: SqliteTrail;
  grants: SqliteGrants;
  budgets: SqliteBudgets;
  /** The notification outbox (schema version 7). */
  outbox: SqliteOutbox;
  listing: SqliteListing;
  commits: SqliteGroupCommit;
  fill: SqliteSummaryFill;
  /** The store's Merkle log (issue 12), over its tables: prepared when first asked for. */
  log?: StoreEvidenceLog;
  /** `null` for a database in memory, which has no log to checkpoint. */
  checkpoints: SqliteCheckpoints | null;
  /** A create's statements, inside its savepoint of a batch. */
  create: (write: RunWrite, records: RecordWrite) => void;
  /** A save's statements, inside its savepoint of a batch. */
  save: (
    write: RunWrite,
    expectedRevision: number,
    records: RecordWrite,
    grantUses: readonly GrantUse[],
    budgetCharge?: BudgetCharge,
  ) => void;
  /** An append's statements, inside its savepoint of a batch. */
  append: (records: RecordWrite) => void;
}

function prepare(database: Database.Database, path: string): Prepared {
  const runs = new SqliteRuns(database);
  const trail = new SqliteTrail(database, path);
  const grants = new SqliteGrants(database);
  const budgets = new SqliteBudgets(database);
  const outbox = new SqliteOutbox(database);
  // Set once the batches exist: its timer asks them whether writes wait, and their hook runs it.
  let checkpoints: SqliteCheckpoints | null = null;
  // Every write runs in a batch's BEGIN IMMEDIATE transaction: it takes the file's write lock before
  // reading, so the checks inside it (does the run exist, is the revision still the expected one,
  // where does the chain end) hold until it commits, and a writer that must wait does so on the busy
  // timeout instead of failing when it tries to upgrade a read. Within the batch a write sees the
  // writes before it, so two saves of one run in one batch are checked against each other too.
  const changes = new SqliteChangeSequence(database);
  const commits = new SqliteGroupCommit(database, path, {
    // Between runs rather than between the steps of one: a run's start waits for no tool call.
    before: (writes) => {
      if (writes.some((write) => write.operation.method === "create")) checkpoints?.runIfDue();
    },
    begin: () => changes.begin(),
    end: () => changes.end(),
    failed: () => changes.abandon(),
  });
  if (!database.memory) checkpoints = new SqliteCheckpoints(database, () => commits.waiting > 0);
  return {
    database,
    runs,
    changes,
    trail,
    grants,
    budgets,
    outbox,
    listing: new SqliteListing(database, runs),
    commits,
    fill: new SqliteSummaryFill(database, runs),
    checkpoints,
    create: (write, records) => {
      const { runId } = write;
      if (runs.holds(runId) || trail.holds(runId)) {
        throw new StateError("run_exists", `Run \`${runId}\` exists already; a run id is never reused.`, {
          details: { runId },
        });
      }
      const change = changes.next();
      runs.insert(write, change);
      trail.insert(records);
      outbox.insert(runId, write.events);
      changes.took(change);
    },
    save: (write, expectedRevision, records, grantUses, budgetCharge) => {
      const change = changes.next();
      // In the save's own savepoint: a use a grant refuses rolls the whole save back, the uses of
      // other grants taken before it included.
      for (const use of grantUses) grants.take(use);
      runs.update(write, expectedRevision, change);
      trail.insert(records);
      // Last, as the memory store checks it (a stale save is refused as stale, not as over budget),
      // and in the same savepoint: a charge the budget has no room for rolls back the state and the
      // records above; the saves after it in the batch read the spend this one took.
      if (budgetCharge !== undefined) budgets.charge(budgetCharge);
      // In the same savepoint, after every check: a save refused rolls back its events too.
      outbox.insert(write.runId, write.events);
      changes.took(change);
    },
    append: (records) => trail.insert(records),
  };
}

/** Sleeps the thread: the constructor is synchronous, as SQLite's own busy wait is. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Opens, configures and migrates the file. SQLite answers some lock conflicts of a first open (a
 * switch to WAL or a recovery in another process) with `SQLITE_BUSY` at once, without waiting on the
 * busy timeout; such an open is tried again, with a growing pause, until the busy timeout has passed.
 * @internal
 */
export function openPrepared(path: string, busyTimeoutMs: number): Prepared {
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    let database: Database.Database | undefined;
    try {
      database = new Database(path, { timeout: busyTimeoutMs });
      configure(database, busyTimeoutMs);
      migrate(database, path);
      return prepare(database, path);
    } catch (error) {
      database?.close();
      if (isBusy(error) && Date.now() < deadline) {
        sleepSync(Math.min(2 ** attempt, 50, Math.max(1, deadline - Date.now())));
        continue;
      }
      throw toLeashError(error, { method: "open", path });
    }
  }
}
