import type { Approval } from "../../approvals/approval.js";
import type { AuditRecord } from "../../audit/audit-record.js";
import type { AuditSink } from "../../audit/audit-sink.js";
import { checkRecords } from "../../audit/check-records.js";
import { LeashError, StateError, checkOptionKeys } from "../../errors/index.js";
import type { SummaryPage } from "../run-summary.js";
import { fillSummaries } from "./postgres-backfill.js";
import { checkConnection } from "./postgres-connection.js";
import type { CheckedConnection, PostgresConnection } from "./postgres-connection.js";
import { createRun, saveRun } from "./postgres-save.js";
import { TrackedPool } from "./tracked-pool.js";
import { SaveBatches } from "./postgres-save-batches.js";
import { listStates, listSummaries, readChangeSequence } from "./postgres-listing.js";
import type { RunState } from "../../state/run-state.js";
import { checkSaveRevision } from "../memory-store.js";
import { recordAnswer } from "../record-answer.js";
import { checkListOptions } from "../list-runs.js";
import type { AnswerOptions, ListOptions, RunStore, SaveOptions } from "../run-store.js";
import { WrittenSteps } from "../written-steps.js";
import type { LeaseHolder, LeaseOptions } from "./postgres-lease.js";
import { insertRecords, inSeqOrder, parseStoredRecord } from "./postgres-audit-rows.js";
import { storeFailed } from "./postgres-errors.js";
import type { PostgresPool } from "./postgres-pool.js";
import { leaseRuns, releaseLeases, renewLeases } from "./postgres-lease.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import { assembleRun, runRows, selectRuns } from "./postgres-runs.js";
import { migrate } from "./postgres-schema.js";
import { storeEvidenceLog, type StoreEvidenceLog } from "../../evidence/store-evidence-log.js";
import { PostgresLogTables } from "./postgres-log.js";
import { postgresTables } from "./postgres-tables.js";
import {
  claimNotifications,
  listNotifications,
  pruneNotifications,
  settleNotification,
  startNotifications,
} from "./postgres-outbox.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "../notification-info.js";
import type { PostgresTables } from "./postgres-tables.js";
import { DEFAULT_POOL_MAX, openPool, resolveTimeouts } from "./open-pool.js";
import type { PostgresTimeouts } from "./open-pool.js";
import type { GiveGrantOptions, GrantInfo, GrantOptions, GrantUse, GrantsOptions } from "../grant-info.js";
import type { RevokeGrantOptions } from "../grant-info.js";
import { distinctUses, refuseReservedRunId } from "../grant-options.js";
import { giveGrant, listGrants, revokeGrant, takeGrantUse, takeUse } from "./postgres-grants.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits } from "../budget-info.js";
import {
  checkBudgetCharge,
  checkBudgetKey,
  checkBudgetLimits,
  checkChangeOptions,
  isEmptyCharge,
} from "../budget-info.js";
import { chargeBudget, raiseBudget, resetBudget, selectBudget, selectBudgets, setBudget } from "./postgres-budgets.js";
import type { BudgetLimitName } from "../budget-raise.js";
import { checkBudgetRaise } from "../budget-raise.js";

export type { PostgresConnection };

/** Options of a {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The schema that holds the store's tables, created when missing; default `public`. */
  schema?: string;
  /**
   * How long the pool the store makes (from a `connectionString`) waits to connect and for a
   * statement, in milliseconds; see {@link PostgresTimeouts} for the defaults. A pool you give is
   * yours to configure.
   */
  timeouts?: PostgresTimeouts;
  /**
   * How many connections the pool the store makes opens at most; default 10. Calls beyond that queue
   * for a free connection (bounded by `timeouts.acquireMs`). Refused with a `pool` of yours, which
   * you size.
   */
  poolMax?: number;
}

function staleTrail(runId: string, error: unknown): StateError {
  return new StateError(
    "stale_state",
    `Another writer extended the audit trail of run \`${runId}\` at the same place: nothing was written.`,
    {
      cause: error,
      details: { runId },
    },
  );
}

/**
 * A {@link RunStore} and {@link AuditSink} in PostgreSQL, for many workers on many machines. A state
 * save and the records that led to it commit in one transaction; saves are compare-and-set on
 * `revision`; its tables live in `schema` (default `public`) and are created on first use. The
 * constructor does no I/O: the store connects when first used.
 *
 * @example
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL ?? "" });
 * const agent = new Agent({ tools, planner, store, audit: store });
 * await agent.run("save the report");
 * await store.close();
 */
export class PostgresStore implements RunStore, AuditSink {
  readonly #tables: PostgresTables;
  readonly #connection: CheckedConnection;
  readonly #timeouts: Required<PostgresTimeouts>;
  #pool: TrackedPool | undefined;
  #draining = false;
  #ready: Promise<PostgresPool> | undefined;
  #closed = false;
  #log: StoreEvidenceLog | undefined;
  /** The step rows this store object last wrote, per run, so that a save writes only the steps that may have changed. */
  readonly #written = new WrittenSteps();
  /** Saves made while every connection is busy, sent together (group commit). */
  readonly #batches: SaveBatches;

  /** `schema` may be given in the first argument (`{ connectionString, schema }`) or in the second. */
  constructor(connection: PostgresConnection & PostgresStoreOptions, options: PostgresStoreOptions = {}) {
    if (typeof options !== "object" || options === null)
      throw new LeashError("invalid_option", "Expected the PostgresStore options to be an object.");
    checkOptionKeys(options, ["schema", "timeouts", "poolMax"], "new PostgresStore(connection, options)");
    this.#connection = checkConnection(connection, options, DEFAULT_POOL_MAX);
    const given = [connection.schema, options.schema].filter((schema) => schema !== undefined);
    if (given.length === 2 && given[0] !== given[1])
      throw new LeashError("invalid_option", "Expected one `schema`, not two different ones.");
    this.#tables = postgresTables(given[0] ?? "public");
    const timeouts = [connection.timeouts, options.timeouts].filter((item) => item !== undefined);
    if (timeouts.length === 2)
      throw new LeashError("invalid_option", "Expected `timeouts` in one of the two arguments, not both.");
    this.#timeouts = resolveTimeouts(timeouts[0]);
    const slots = "poolMax" in this.#connection ? this.#connection.poolMax : DEFAULT_POOL_MAX;
    this.#batches = new SaveBatches(() => this.#open(true), this.#tables, slots, this.#timeouts.acquireMs);
  }

  /** The schema that holds the store's tables. */
  get schema(): string {
    return this.#tables.schema;
  }

  /** The pool, with the tables made ready; a failed start is tried again at the next call. */
  #open(draining = false): Promise<PostgresPool> {
    // While a close drains, the saves already queued still reach the pool; nothing new does.
    if (this.#closed && !(draining && this.#draining))
      return Promise.reject(new LeashError("store_failed", "This PostgresStore was closed."));
    this.#ready ??= (async () => {
      this.#pool ??= new TrackedPool(
        "pool" in this.#connection
          ? this.#connection.pool
          : openPool(this.#connection.connectionString, this.#timeouts, this.#connection.poolMax),
      );
      await migrate(this.#pool, this.#tables);
      await fillSummaries(this.#pool, this.#tables);
      return this.#pool;
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Stores a new run, its header and its steps; `run_exists` when its id is taken, in the runs or in the trail. */
  async create(state: RunState, options: { records?: readonly AuditRecord[] } = {}): Promise<void> {
    refuseReservedRunId(state.runId);
    const records = checkRecords(options.records ?? []);
    const writes = this.#written.plan(state, null);
    const rows = runRows(state, writes, records);
    await createRun(await this.#open(), this.#tables, rows, records);
    this.#written.remember(state.runId, writes);
  }

  /** The stored state of a run, put back together from its header and steps and checked (`RunState.fromParts`), or `null`. */
  async load(runId: string): Promise<RunState | null> {
    // PostgreSQL's text holds no NUL, so no stored run has such an id: none is asked for.
    if (typeof runId === "string" && runId.includes("\u0000")) return null;
    const pool = await this.#open();
    const result = await queryOnce(
      pool,
      `loading run \`${runId}\``,
      selectRuns(this.#tables, "WHERE runs.run_id = $1"),
      [runId],
    );
    const row = result.rows[0];
    return row === undefined ? null : assembleRun(row);
  }

  /**
   * Compare-and-set on `revision`, with the records in the same transaction: `stale_state` when the
   * stored revision is not `expectedRevision` or another writer took one of the records' places in
   * the trail, `run_not_found` when there is no such run. A refused save changes nothing. Only the
   * steps that may have changed since this store object's last save of the run are written (see
   * {@link WrittenSteps}). A `budgetCharge` is taken in the same statement, after the save, under the
   * budget row's lock: refused (`limit_reached`), nothing of the save is written.
   */
  async save(state: RunState, options: SaveOptions): Promise<void> {
    checkSaveRevision(state, options);
    const records = checkRecords(options.records ?? []);
    // A charge of nothing changes nothing and refuses nothing: the save goes as one without a charge
    // (batched, no budget row locked).
    const given = options.budgetCharge === undefined ? undefined : checkBudgetCharge(options.budgetCharge);
    const budgetCharge = given === undefined || isEmptyCharge(given) ? undefined : { ...given };
    // In the order of their ids: two saves that lock the same grants lock them in the same order.
    const grantUses = distinctUses(options.grantUses).toSorted((first, second) =>
      first.grant < second.grant ? -1 : first.grant > second.grant ? 1 : 0,
    );
    const { runId } = state;
    const writes = this.#written.plan(state, options.expectedRevision);
    const rows = runRows(state, writes, records);
    await saveRun(
      await this.#open(),
      this.#tables,
      rows,
      options.expectedRevision,
      records,
      (error) => staleTrail(runId, error),
      this.#batches,
      grantUses.length === 0
        ? undefined
        : async (client) => {
            for (const use of grantUses) await takeUse(client, this.#tables, use);
          },
      budgetCharge,
    );
    this.#written.remember(runId, writes);
  }

  /**
   * The stored runs, with the filters, order and paging of {@link ListOptions}: the same runs in the
   * same order as {@link summaries}, by the same SQL, with their states. A run whose state cannot be
   * read is left out and reported to `onUnreadable`: one bad row never fails the listing.
   */
  async list(options?: ListOptions): Promise<RunState[]> {
    const checked = checkListOptions(options);
    return listStates(await this.#open(), this.#tables, checked);
  }

  /**
   * One page of run summaries, read from the summaries kept on every save through an index of the
   * order: no state is read. `next` is set when the page is full. A run whose state could not be read
   * when its summary was first made has none, and is left out.
   */
  async summaries(options?: ListOptions): Promise<SummaryPage> {
    const checked = checkListOptions(options);
    return listSummaries(await this.#open(), this.#tables, checked);
  }

  /**
   * The store's change sequence, bumped by every create, save and answer: every change at or below
   * the value returned has committed, so `list({ changedSince })` with it misses none.
   */
  async changeSequence(): Promise<number> {
    return readChangeSequence(await this.#open(), this.#tables, this.#timeouts.acquireMs);
  }

  /** Records a person's answer to a paused run's pending request, for a later `resume(runId)`. */
  answer(runId: string, approval: Approval, options?: AnswerOptions): Promise<RunState> {
    return recordAnswer(this, runId, approval, options);
  }

  /** Gives a standing grant with its `grant_given` record, in one transaction; see `RunStore.grant`. */
  async grant(options: GrantOptions, give?: GiveGrantOptions): Promise<GrantInfo> {
    return giveGrant(await this.#open(), this.#tables, options, give);
  }

  /** Revokes a standing grant with its `grant_revoked` record; see `RunStore.revokeGrant`. */
  async revokeGrant(id: string, options: RevokeGrantOptions): Promise<GrantInfo> {
    return revokeGrant(await this.#open(), this.#tables, id, options);
  }

  /** The standing grants, oldest first; see `RunStore.grants`. */
  async grants(options?: GrantsOptions): Promise<GrantInfo[]> {
    return listGrants(await this.#open(), this.#tables, options);
  }

  /** Takes one use of a standing grant in a transaction of its own. @internal */
  async takeGrantUse(use: GrantUse): Promise<void> {
    return takeGrantUse(await this.#open(), this.#tables, use);
  }

  /**
   * Creates or changes a shared budget with its `budget_set` record, in one transaction; see
   * `RunStore.setBudget`. The spend kept is the one stored when the change commits.
   */
  async setBudget(key: string, limits: BudgetLimits, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    // Checked before connecting, so that bad input is `invalid_option` whether or not the server answers.
    checkBudgetKey(key);
    checkBudgetLimits(limits);
    checkChangeOptions(options, "setBudget");
    return setBudget(await this.#open(), this.#tables, key, limits, options);
  }

  /** A shared budget's limits and spend as committed, or `null`; see `RunStore.budget`. */
  async budget(key: string): Promise<BudgetInfo | null> {
    checkBudgetKey(key);
    return selectBudget(await this.#open(), this.#tables, key);
  }

  /** Sets a budget's spend back to zero with its `budget_reset` record; see `RunStore.resetBudget`. */
  async resetBudget(key: string, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    checkBudgetKey(key);
    checkChangeOptions(options, "resetBudget");
    return resetBudget(await this.#open(), this.#tables, key, options);
  }

  /** Every shared budget, by key; see `RunStore.budgets`. */
  async budgets(): Promise<BudgetInfo[]> {
    return selectBudgets(await this.#open(), this.#tables);
  }

  /**
   * Raises one limit of a budget when it is set and below `to`, with its `budget_set` record, in one
   * transaction under the row's lock; see `RunStore.raiseBudget`. @internal
   */
  async raiseBudget(
    key: string,
    limit: BudgetLimitName,
    to: number,
    options?: BudgetChangeOptions,
  ): Promise<BudgetInfo | null> {
    // Checked before connecting, so that bad input is `invalid_option` whether or not the server answers.
    const raise = checkBudgetRaise(key, limit, to, options);
    return raiseBudget(await this.#open(), this.#tables, raise);
  }

  /** Takes a charge from a budget in one statement of its own (`leash_charge_budget`). @internal */
  async chargeBudget(charge: BudgetCharge): Promise<void> {
    return chargeBudget(await this.#open(), this.#tables, charge);
  }

  /** The outbox, newest first; see `RunStore.notifications`. */
  async notifications(options?: NotificationsOptions): Promise<NotificationPage> {
    return listNotifications(await this.#open(), this.#tables, options);
  }

  /** Leases the due pending events, oldest first (`FOR UPDATE SKIP LOCKED`); see `RunStore.claimNotifications`. */
  async claimNotifications(options: ClaimNotificationsOptions): Promise<NotificationEvent[]> {
    return claimNotifications(await this.#open(), this.#tables, options);
  }

  /** Records how a delivery went; see `RunStore.settleNotification`. */
  async settleNotification(id: string, outcome: NotificationOutcome): Promise<void> {
    return settleNotification(await this.#open(), this.#tables, id, outcome);
  }

  /** A deliverer's start, the first one remembered in the schema; see `RunStore.startNotifications`. */
  async startNotifications(options: StartNotificationsOptions): Promise<StartNotificationsResult> {
    return startNotifications(await this.#open(), this.#tables, options);
  }

  /** Deletes the events delivered before a time; see `RunStore.pruneNotifications`. */
  async pruneNotifications(options: { deliveredBefore: Date }): Promise<number> {
    return pruneNotifications(await this.#open(), this.#tables, options);
  }

  /** Appends records in one transaction: all or none; `stale_state` when one's (run, seq) place is taken. */
  async append(records: readonly AuditRecord[]): Promise<void> {
    const checked = checkRecords(records);
    if (checked.length === 0) return;
    const pool = await this.#open();
    await inTransaction(pool, "appending audit records", (client) =>
      insertRecords(client, this.#tables, checked, (error) => staleTrail(checked[0]?.run ?? "", error)),
    );
  }

  /** One run's records in `seq` order, or every record, each run's in `seq` order, in the order written. */
  async read(runId?: string): Promise<AuditRecord[]> {
    const pool = await this.#open();
    if (runId !== undefined) {
      const result = await queryOnce(
        pool,
        `reading the trail of run \`${runId}\``,
        `SELECT run_id, seq, record FROM ${this.#tables.audit} WHERE run_id = $1 ORDER BY seq`,
        [runId],
      );
      return result.rows.map((row) => parseStoredRecord(row.record, row.run_id, row.seq));
    }
    // The log's order: the sequenced records by leaf index, then the rest as they will be sequenced.
    const result = await queryOnce(
      pool,
      "reading the trail",
      `SELECT run_id, seq, record FROM ${this.#tables.audit} ORDER BY leaf_index NULLS LAST, position`,
    );
    return inSeqOrder(result.rows.map((row) => parseStoredRecord(row.record, row.run_id, row.seq)));
  }

  /**
   * Leases runs for a worker (see `leash/worker`): answered runs awaiting approval, and with
   * `recover` runs a crashed worker left running. Returns their ids; each is leased to one worker only
   * until `ttlMs` passes, unless renewed. The lease is the worker's business: `agent.resume` neither
   * checks nor waits for it.
   */
  async lease(options: LeaseOptions): Promise<string[]> {
    return leaseRuns(await this.#open(), this.#tables, options);
  }

  /** Extends a worker's leases by `ttlMs` from now; returns the run ids it still holds. */
  async renewLease(holder: LeaseHolder & { ttlMs: number }): Promise<string[]> {
    return renewLeases(await this.#open(), this.#tables, holder);
  }

  /** Gives a worker's leases back at once. */
  async releaseLease(holder: LeaseHolder): Promise<void> {
    await releaseLeases(await this.#open(), this.#tables, holder);
  }

  /** The store as one Merkle log, sequenced under a lock (what `evidenceLogOf(store)` returns). */
  evidenceLog(): StoreEvidenceLog {
    this.#log ??= storeEvidenceLog(new PostgresLogTables(() => this.#open(), this.#tables));
    return this.#log;
  }

  /** Ends the pool the store made from a connection string; a pool given to it is left open for its owner. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // The work already asked for ends first, as SQLite's close commits the writes waiting for their
    // batch: the saves queued for a batch are sent, and every query and transaction in flight is
    // answered, before the pool ends (ending it drops whoever still waits for a connection, leaving
    // their promises pending forever). The wait is bounded, as a wait for a connection is.
    this.#draining = true;
    const ready = this.#ready;
    await ready?.catch(() => undefined);
    await this.#batches.idle(this.#timeouts.acquireMs);
    await this.#pool?.idle(this.#timeouts.acquireMs);
    this.#draining = false;
    this.#ready = undefined;
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool === undefined || !("connectionString" in this.#connection)) return;
    try {
      await pool.end();
    } catch (error) {
      throw storeFailed(error, "closing the pool");
    }
  }
}
