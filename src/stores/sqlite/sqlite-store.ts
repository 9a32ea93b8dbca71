import type { Approval } from "../../approvals/approval.js";
import type { AuditRecord } from "../../audit/audit-record.js";
import type { SyncReadableAuditSink } from "../../audit/audit-sink.js";
import { LeashError, checkOptionKeys } from "../../errors/index.js";
import type { RunState } from "../../state/run-state.js";
import { checkSaveRevision } from "../memory-store.js";
import { recordAnswer } from "../record-answer.js";
import { checkListOptions, reportUnreadable } from "../list-runs.js";
import type { AnswerOptions, ListOptions, RunStore, SaveOptions } from "../run-store.js";
import type { SummaryPage } from "../run-summary.js";
import type { StoreEvidenceLog } from "../../evidence/store-evidence-log.js";
import { WrittenSteps } from "../written-steps.js";
import { SqliteLogTables, sqliteEvidenceLog } from "./sqlite-log.js";
import { toLeashError } from "./sqlite-errors.js";
import { distinctUses, refuseReservedRunId } from "../grant-options.js";
import type { SqliteOperation } from "./sqlite-errors.js";
import type { QueuedWrite } from "./sqlite-group-commit.js";
import { openPrepared } from "./sqlite-prepared.js";
import type { Prepared } from "./sqlite-prepared.js";
import { recordWriteOf, runWriteOf } from "./sqlite-run-write.js";
import type {
  GiveGrantOptions,
  GrantInfo,
  GrantOptions,
  GrantUse,
  GrantsOptions,
  RevokeGrantOptions,
} from "../grant-info.js";
import { SqliteGrantWrites } from "./sqlite-grant-writes.js";
import { SqliteBudgetWrites } from "./sqlite-budget-writes.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits } from "../budget-info.js";
import { checkBudgetCharge } from "../budget-info.js";
import type { BudgetLimitName } from "../budget-raise.js";
import { SqliteOutboxWrites } from "./sqlite-outbox-writes.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "../notification-info.js";

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits for another process's transaction on the same file before it gives up, in
   * milliseconds (it then fails with `store_busy`, and nothing was written). Default 5000.
   */
  busyTimeoutMs?: number;
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
  readonly #grantWrites = new SqliteGrantWrites(
    (operation, body) => this.#do(operation, body),
    (operation, plan) => this.#write(operation, plan),
  );
  readonly #budgetWrites = new SqliteBudgetWrites(
    (operation, body) => this.#do(operation, body),
    (operation, plan) => this.#write(operation, plan),
  );

  readonly #outboxWrites = new SqliteOutboxWrites(
    (operation, body) => this.#do(operation, body),
    (operation, plan) => this.#write(operation, plan),
  );

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
    this.#prepared.fill.start();
  }

  /**
   * Stores a new run and the records that began it, in one transaction; refused with `run_exists`
   * when the run id is taken, by a stored state or by records in the trail. Committed with the other
   * writes of this turn of the event loop (group commit), and resolved once committed.
   */
  create(state: RunState, options: { records?: readonly AuditRecord[] } = {}): Promise<void> {
    return this.#write({ method: "create", runId: state.runId }, () => {
      refuseReservedRunId(state.runId);
      const writes = this.#written.plan(state, null);
      const run = runWriteOf(state, writes, options.records);
      const records = recordWriteOf(options.records ?? []);
      return {
        apply: (prepared) => prepared.create(run, records),
        committed: () => this.#written.remember(run.runId, writes),
      };
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
   * The saves of concurrent runs asked for in one turn of the event loop commit in one transaction
   * (group commit), each in a savepoint of its own, so one refused save fails alone; each promise
   * settles after the COMMIT, so a save that resolved is durable. A `budgetCharge` is taken in the
   * save's savepoint: refused (`limit_reached`), it rolls back that save alone, and the saves after it
   * in the batch see the spend of those before.
   */
  save(state: RunState, options: SaveOptions): Promise<void> {
    return this.#write({ method: "save", runId: state.runId, compareAndSet: true }, () => {
      checkSaveRevision(state, options);
      const { expectedRevision } = options;
      const writes = this.#written.plan(state, expectedRevision);
      const run = runWriteOf(state, writes, options.records);
      const records = recordWriteOf(options.records ?? []);
      const grantUses = distinctUses(options.grantUses);
      const budgetCharge =
        options.budgetCharge === undefined ? undefined : { ...checkBudgetCharge(options.budgetCharge) };
      return {
        apply: (prepared) => prepared.save(run, expectedRevision, records, grantUses, budgetCharge),
        committed: () => this.#written.remember(run.runId, writes),
      };
    });
  }

  /**
   * The stored runs' states, with the filters, order and paging of {@link ListOptions} and the very
   * query of {@link SqliteStore.summaries} (the same runs in the same order); only the states of the
   * page's runs are read. Without `limit`, every run that matches. A run whose state cannot be read
   * is left out and reported to `onUnreadable`, once it has been read: one bad row never fails the
   * listing.
   */
  async list(options?: ListOptions): Promise<RunState[]> {
    const checked = checkListOptions(options);
    const { states, unreadable } = await this.#do({ method: "list" }, (prepared) => prepared.listing.states(checked));
    reportUnreadable(checked, unreadable);
    return states;
  }

  /**
   * The summaries of the stored runs, with the filters, order and paging of {@link ListOptions},
   * answered from the `summary` column and the indexes of each order: no run's state is read (but
   * that of a run written before schema version 4 whose summary is not filled in yet). `next` is set
   * when the page is full. A run whose summary cannot be read nor made from its state is left out
   * and reported to `onUnreadable`.
   */
  async summaries(options?: ListOptions): Promise<SummaryPage> {
    const checked = checkListOptions(options);
    const { page, unreadable } = await this.#do({ method: "summaries" }, (prepared) =>
      prepared.listing.summaries(checked),
    );
    reportUnreadable(checked, unreadable);
    return page;
  }

  /** The store's change sequence, as committed: it grows with every create, save and answer. */
  changeSequence(): Promise<number> {
    return this.#do({ method: "changeSequence" }, (prepared) => prepared.changes.current());
  }

  /**
   * Records a person's answer to the pending request of a paused run, for a later `resume(runId)`;
   * refused with `stale_state` unless the run awaits approval and the digest is the pending one.
   */
  answer(runId: string, approval: Approval, options?: AnswerOptions): Promise<RunState> {
    return recordAnswer(this, runId, approval, options);
  }

  /** Gives a standing grant, stored with its `grant_given` record in one transaction; see `RunStore.grant`. */
  grant(options: GrantOptions, give?: GiveGrantOptions): Promise<GrantInfo> {
    return this.#grantWrites.give(options, give);
  }

  /** Revokes a standing grant, with its `grant_revoked` record; see `RunStore.revokeGrant`. */
  revokeGrant(id: string, options: RevokeGrantOptions): Promise<GrantInfo> {
    return this.#grantWrites.revoke(id, options);
  }

  /** The standing grants, oldest first; see `RunStore.grants`. */
  grants(options?: GrantsOptions): Promise<GrantInfo[]> {
    return this.#grantWrites.list(options);
  }

  /** Takes one use of a standing grant in a transaction of its own. @internal */
  takeGrantUse(use: GrantUse): Promise<void> {
    return this.#grantWrites.take(use);
  }

  /**
   * Creates or changes a shared budget, written with its `budget_set` record in one transaction; see
   * `RunStore.setBudget`. The spend kept is the one stored when the write commits.
   */
  setBudget(key: string, limits: BudgetLimits, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    return this.#budgetWrites.set(key, limits, options);
  }

  /** A shared budget's limits and spend as committed, or `null`; see `RunStore.budget`. */
  budget(key: string): Promise<BudgetInfo | null> {
    return this.#budgetWrites.get(key);
  }

  /** Sets a budget's spend back to zero, with its `budget_reset` record; see `RunStore.resetBudget`. */
  resetBudget(key: string, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    return this.#budgetWrites.reset(key, options);
  }

  /** Every shared budget, by key; see `RunStore.budgets`. */
  budgets(): Promise<BudgetInfo[]> {
    return this.#budgetWrites.list();
  }

  /**
   * Raises one limit of a budget when it is set and below `to`, with its `budget_set` record, in one
   * write; see `RunStore.raiseBudget`. @internal
   */
  raiseBudget(
    key: string,
    limit: BudgetLimitName,
    to: number,
    options?: BudgetChangeOptions,
  ): Promise<BudgetInfo | null> {
    return this.#budgetWrites.raise(key, limit, to, options);
  }

  /** Takes a charge from a budget in a write of its own, through the batches. @internal */
  chargeBudget(charge: BudgetCharge): Promise<void> {
    return this.#budgetWrites.charge(charge);
  }

  /** The outbox, newest first; see `RunStore.notifications`. */
  notifications(options?: NotificationsOptions): Promise<NotificationPage> {
    return this.#outboxWrites.list(options);
  }

  /** Leases the due pending events, oldest first, in one write; see `RunStore.claimNotifications`. */
  claimNotifications(options: ClaimNotificationsOptions): Promise<NotificationEvent[]> {
    return this.#outboxWrites.claim(options);
  }

  /** Records how a delivery went; see `RunStore.settleNotification`. */
  settleNotification(id: string, outcome: NotificationOutcome): Promise<void> {
    return this.#outboxWrites.settle(id, outcome);
  }

  /** A deliverer's start, the first one remembered in the file; see `RunStore.startNotifications`. */
  startNotifications(options: StartNotificationsOptions): Promise<StartNotificationsResult> {
    return this.#outboxWrites.start(options);
  }

  /** Deletes the events delivered before a time; see `RunStore.pruneNotifications`. */
  pruneNotifications(options: { deliveredBefore: Date }): Promise<number> {
    return this.#outboxWrites.prune(options);
  }

  /**
   * Appends records in one transaction, all or none. Each run's records must continue its stored
   * chain (`stale_state` when another writer got there first, `audit_corrupt` for a gap or a wrong link).
   */
  append(records: readonly AuditRecord[]): Promise<void> {
    return this.#write({ method: "append" }, () => {
      const write = recordWriteOf(records);
      return { apply: (prepared) => prepared.append(write), committed: () => undefined };
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
   * Commits the writes still waiting for their batch, checkpoints what this store wrote and closes
   * the database; later calls are refused with `store_failed`. Closing twice is harmless.
   */
  close(): Promise<void> {
    const prepared = this.#prepared;
    this.#prepared = null;
    try {
      prepared?.commits.drain();
      prepared?.fill.stop();
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

  /**
   * Queues a write for this turn's batch. `plan` runs now, before anything is awaited: it checks the
   * arguments and turns the state and records into the text written (a refusal rejects at once,
   * writing nothing), so the write is of the state as it was given.
   */
  #write(
    operation: Omit<SqliteOperation, "path">,
    plan: () => { apply: (prepared: Prepared) => void; committed: () => void },
  ): Promise<void> {
    try {
      const prepared = this.#open(operation.method);
      const { apply, committed } = plan();
      const write: QueuedWrite = {
        operation,
        apply: () => apply(prepared),
        committed: () => {
          committed();
          prepared.checkpoints?.wrote();
        },
      };
      return prepared.commits.write(write);
    } catch (error) {
      return Promise.reject(toLeashError(error, { ...operation, path: this.path }));
    }
  }
}
