import Database from "better-sqlite3";
import type { Approval } from "../../approvals/approval.js";
import type { AuditRecord } from "../../audit/audit-record.js";
import type { SyncReadableAuditSink } from "../../audit/audit-sink.js";
import { LeashError, StateError, checkOptionKeys } from "../../errors/index.js";
import type { RunState } from "../../state/run-state.js";
import { checkSaveRevision } from "../memory-store.js";
import { recordAnswer } from "../record-answer.js";
import { checkListOptions, reportUnreadable } from "../list-runs.js";
import type { AnswerOptions, ListOptions, RunStore, SaveOptions } from "../run-store.js";
import { WrittenSteps } from "../written-steps.js";
import type { StepWrites } from "../written-steps.js";
import type { StoreEvidenceLog } from "../../evidence/store-evidence-log.js";
import { SqliteCheckpoints } from "./sqlite-checkpoints.js";
import { SqliteLogTables, sqliteEvidenceLog } from "./sqlite-log.js";
import { isBusy, toLeashError } from "./sqlite-errors.js";
import type { SqliteOperation } from "./sqlite-errors.js";
import { SqliteRuns } from "./sqlite-runs.js";
import { configure, migrate } from "./sqlite-schema.js";
import { SqliteTrail } from "./sqlite-trail.js";

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits for another process's transaction on the same file before it gives up, in
   * milliseconds (it then fails with `store_busy`, and nothing was written). Default 5000.
   */
  busyTimeoutMs?: number;
}

/** The statements and transactions of an open store, prepared once. */
interface Prepared {
  database: Database.Database;
  runs: SqliteRuns;
  trail: SqliteTrail;
  /** The store's Merkle log (issue 12), over its tables: prepared when first asked for. */
  log?: StoreEvidenceLog;
  /** `null` for a database in memory, which has no log to checkpoint. */
  checkpoints: SqliteCheckpoints | null;
  create: (state: RunState, writes: StepWrites, records: readonly AuditRecord[]) => void;
  save: (state: RunState, expectedRevision: number, writes: StepWrites, records: readonly AuditRecord[]) => void;
  append: (records: readonly AuditRecord[]) => void;
}

function prepare(database: Database.Database, path: string): Prepared {
  const runs = new SqliteRuns(database);
  const trail = new SqliteTrail(database, path);
  // Every write is one BEGIN IMMEDIATE transaction: it takes the file's write lock before reading, so
  // the checks inside it (does the run exist, is the revision still the expected one, where does the
  // chain end) hold until it commits, and a writer that must wait does so on the busy timeout instead
  // of failing when it tries to upgrade a read.
  const create = database.transaction((state: RunState, writes: StepWrites, records: readonly AuditRecord[]) => {
    const { runId } = state;
    if (runs.holds(runId) || trail.holds(runId)) {
      throw new StateError("run_exists", `Run \`${runId}\` exists already; a run id is never reused.`, {
        details: { runId },
      });
    }
    runs.insert(state, writes);
    trail.insert(records);
  });
  const save = database.transaction(
    (state: RunState, expectedRevision: number, writes: StepWrites, records: readonly AuditRecord[]) => {
      runs.update(state, expectedRevision, writes);
      trail.insert(records);
    },
  );
  const append = database.transaction((records: readonly AuditRecord[]) => trail.insert(records));
  return {
    database,
    runs,
    trail,
    checkpoints: database.memory ? null : new SqliteCheckpoints(database),
    create: (state, writes, records) => create.immediate(state, writes, records),
    save: (state, expectedRevision, writes, records) => save.immediate(state, expectedRevision, writes, records),
    append: (records) => append.immediate(records),
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
 */
function openPrepared(path: string, busyTimeoutMs: number): Prepared {
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

/**
 * A {@link RunStore} and audit sink in one SQLite file (better-sqlite3): the embedded default. Give
 * it to an agent as both store and sink, and each save commits the state together with the audit
 * records that led to it, in one fsynced transaction: after a crash, state and trail never disagree.
 * Several processes may share the file; saves are compare-and-set on the run's revision, so of two
 * processes resuming the same run one wins and the other gets `StateError` `stale_state`.
 *
 * The constructor opens the file at once (better-sqlite3 is synchronous, so a file that cannot be
 * opened throws here, never later unseen), puts it in WAL mode with `synchronous=FULL`, and creates or
 * migrates the tables (`runs`, `steps`, `audit`, `leash_meta`), safely when several processes open a
 * new file at the same moment. A run is a row of its header and a row per step, and a save writes
 * only the steps that may have changed, so a step costs the same however long the run. Driver errors
 * never escape: they become `LeashError` `store_failed`, or `store_busy` for a write that could not
 * lock the file within the busy timeout (a busy database, not a lost race).
 *
 * @example
 * import { SqliteStore } from "leash/sqlite";
 * const store = new SqliteStore("runs.db"); // or ":memory:"
 * const agent = new Agent({ tools, planner, store, audit: store });
 * const inbox = await store.list({ status: "awaiting_approval" });
 * await store.close();
 */
export class SqliteStore implements RunStore, SyncReadableAuditSink {
  /** The database file (or `:memory:`). */
  readonly path: string;
  #prepared: Prepared | null;
  /** The step rows this store object last wrote, per run, so that a save writes only the steps that may have changed. */
  readonly #written = new WrittenSteps();

  constructor(path: string, options: SqliteStoreOptions = {}) {
    if (typeof path !== "string" || path === "") {
      throw new LeashError("invalid_option", 'Expected the SQLite store\'s `path` to be a file name or ":memory:".');
    }
    if (typeof options !== "object" || options === null)
      throw new LeashError("invalid_option", "Expected the SQLite store's options to be an object.");
    checkOptionKeys(options, ["busyTimeoutMs"], "new SqliteStore(path, options)");
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0 || busyTimeoutMs > 2 ** 31 - 1) {
      throw new LeashError("invalid_option", "Expected `busyTimeoutMs` to be a non-negative integer of milliseconds.");
    }
    this.path = path;
    this.#prepared = openPrepared(path, busyTimeoutMs);
  }

  /**
   * Stores a new run and the records that began it, in one transaction; refused with `run_exists`
   * when the run id is taken, by a stored state or by records in the trail.
   */
  create(state: RunState, options: { records?: readonly AuditRecord[] } = {}): Promise<void> {
    return this.#do({ method: "create", runId: state.runId }, (prepared) => {
      // Between runs rather than between the steps of one: a run's start waits for no tool call.
      prepared.checkpoints?.runIfDue();
      const writes = this.#written.plan(state, null);
      prepared.create(state, writes, options.records ?? []);
      this.#written.remember(state.runId, writes);
      prepared.checkpoints?.wrote();
    });
  }

  /** The stored state of a run, put back together from its header and steps and checked (`RunState.fromParts`), or `null`. */
  load(runId: string): Promise<RunState | null> {
    return this.#do({ method: "load", runId }, (prepared) => prepared.runs.load(runId));
  }

  /**
   * Compare-and-set on `revision`, with the records made since the last save, in one transaction: a
   * run moved on since `expectedRevision` is refused with `stale_state` (`run_not_found` when it is not
   * stored), and then neither the state nor any record is written. Only the steps that may have
   * changed since this store object's last save of the run are written (see {@link WrittenSteps}).
   */
  save(state: RunState, options: SaveOptions): Promise<void> {
    return this.#do({ method: "save", runId: state.runId, compareAndSet: true }, (prepared) => {
      checkSaveRevision(state, options);
      const writes = this.#written.plan(state, options.expectedRevision);
      prepared.save(state, options.expectedRevision, writes, options.records ?? []);
      this.#written.remember(state.runId, writes);
      prepared.checkpoints?.wrote();
    });
  }

  /**
   * The stored runs in the order they were created, optionally only those of a status
   * (`awaiting_approval` is the inbox) and those whose id starts with `runIdPrefix` (a range on the
   * index of run ids). A run whose state cannot be read is left out and reported to
   * `onUnreadable`, once it has been read: one bad row never fails the listing.
   */
  async list(options?: ListOptions): Promise<RunState[]> {
    const checked = checkListOptions(options);
    const { states, unreadable } = await this.#do({ method: "list" }, (prepared) =>
      prepared.runs.list({ status: checked.status, runIdPrefix: checked.runIdPrefix }),
    );
    reportUnreadable(checked, unreadable);
    return states;
  }

  /**
   * Records a person's answer to the pending request of a paused run, for a later `resume(runId)`;
   * refused with `stale_state` unless the run awaits approval and the digest is the pending one.
   */
  answer(runId: string, approval: Approval, options?: AnswerOptions): Promise<RunState> {
    return recordAnswer(this, runId, approval, options);
  }

  /**
   * Appends records in one transaction, all or none. Each run's records must continue its stored
   * chain (`stale_state` when another writer got there first, `audit_corrupt` for a gap or a wrong link).
   */
  append(records: readonly AuditRecord[]): Promise<void> {
    return this.#do({ method: "append" }, (prepared) => {
      prepared.append(records);
      prepared.checkpoints?.wrote();
    });
  }

  /** One run's records in `seq` order, or every record (each run's in `seq` order) in the order written. */
  read(runId?: string): Promise<AuditRecord[]> {
    return this.#do({ method: "read", ...(runId === undefined ? {} : { runId }) }, (prepared) =>
      prepared.trail.read(runId),
    );
  }

  /** Every record held, in the order written (each run's in `seq` order), read synchronously. */
  get records(): AuditRecord[] {
    try {
      return this.#open("records").trail.read();
    } catch (error) {
      throw toLeashError(error, { method: "records", path: this.path });
    }
  }

  /**
   * The store as one Merkle log: every record a leaf, in the order sequenced, with its stored subtrees
   * and signed checkpoints (what `evidenceLogOf(store)` returns).
   */
  evidenceLog(): StoreEvidenceLog {
    try {
      const prepared = this.#open("evidenceLog");
      prepared.log ??= sqliteEvidenceLog(new SqliteLogTables(prepared.database, prepared.trail), this.path);
      return prepared.log;
    } catch (error) {
      throw toLeashError(error, { method: "evidenceLog", path: this.path });
    }
  }

  /**
   * Checkpoints what this store wrote and closes the database; later calls are refused with
   * `store_failed`. Closing twice is harmless.
   */
  close(): Promise<void> {
    const prepared = this.#prepared;
    this.#prepared = null;
    try {
      prepared?.checkpoints?.stop();
      prepared?.database.close();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(toLeashError(error, { method: "close", path: this.path }));
    }
  }

  #open(method: string): Prepared {
    if (this.#prepared === null) {
      throw new LeashError(
        "store_failed",
        `The SQLite store \`${this.path}\` is closed; ${method} needs an open store.`,
        { details: { path: this.path } },
      );
    }
    return this.#prepared;
  }

  // better-sqlite3 works synchronously; the store keeps the promise-returning RunStore contract, and
  // every failure (a refusal or a driver error, mapped) comes back as a rejection, never a throw.
  #do<T>(operation: Omit<SqliteOperation, "path">, body: (prepared: Prepared) => T): Promise<T> {
    try {
      return Promise.resolve(body(this.#open(operation.method)));
    } catch (error) {
      return Promise.reject(toLeashError(error, { ...operation, path: this.path }));
    }
  }
}
