import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { Approval } from "../approvals/approval.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { RunState } from "../state/run-state.js";
import type { RunStatus } from "../state/outcomes.js";
import type { RunOrder, SummaryPage } from "./run-summary.js";
import type {
  GiveGrantOptions,
  GrantInfo,
  GrantOptions,
  GrantUse,
  GrantsOptions,
  RevokeGrantOptions,
} from "./grant-info.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits } from "./budget-info.js";
import type { BudgetLimitName } from "./budget-raise.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "./notification-info.js";

export type { AnswerOrigin };

/** Options of {@link RunStore.save}. */
export interface SaveOptions {
  /** The revision the caller loaded; the save is refused (`stale_state`) unless it is still the stored one. */
  expectedRevision: number;
  /** Audit records made since the last save, when the store is also the agent's sink: they commit with the state. */
  records?: readonly AuditRecord[];
  /**
   * Standing grants' uses to take in the same transaction, each of a different grant (several under a
   * quorum above one): the save is refused (`stale_state`, with `details.grant`) and nothing is
   * written unless every grant gives its use (see {@link GrantUse}). @internal
   */
  grantUses?: readonly GrantUse[];
  /**
   * What the run spent since its last save, to take from its shared budget in the same transaction:
   * with `check: "tool"` a charge the budget has no room for refuses the whole save (`limit_reached`
   * with `details.budget` and `details.reason`) and nothing is written (see {@link BudgetCharge}). @internal
   */
  budgetCharge?: BudgetCharge;
}

/** Options of {@link RunStore.answer}. */
export interface AnswerOptions {
  /** Where the answer came from; recorded with it. */
  origin?: AnswerOrigin;
}

/** A stored run whose saved state cannot be read back, as {@link RunStore.list} reports it. */
export interface UnreadableRun {
  runId: string;
  /** Why it cannot be read (`invalid_state`, `unsupported_version`, ...). */
  error: Error;
}

/** Options of {@link RunStore.list}. */
export interface ListOptions {
  /** Only runs of this status (`awaiting_approval`: the runs paused for a person; see `awaitingPerson`). */
  status?: RunStatus;
  /**
   * Only the runs awaiting a person (the inbox): those of status `awaiting_approval`, and the gate
   * sessions (status `running`) with one or more requests waiting (`RunSummary.waiting`). Not with `status`.
   */
  awaitingPerson?: boolean;
  /**
   * Only runs whose id starts with this string, compared exactly (no character is a wildcard); the
   * stores answer it from their index on run ids, without reading the other runs.
   */
  runIdPrefix?: string;
  /**
   * Called once for each stored run whose state cannot be read; such a run is left out of the list
   * instead of failing the whole listing.
   */
  onUnreadable?: (problem: UnreadableRun) => void;
  /** At most this many runs (an integer from 1 to `MAX_LIST_LIMIT`); without it, every run that matches. */
  limit?: number;
  /**
   * Where to start: the `next` of a previous page (or `cursorAfter(run, order)` of the last run read),
   * made for the same `order`. The page starts right after that run.
   */
  cursor?: string;
  /** The order of the listing; `created_asc` (the oldest run first) when left out. */
  order?: RunOrder;
  /**
   * Only runs changed (created, saved or answered) after this value of the store's change sequence
   * (see `RunStore.changeSequence`).
   */
  changedSince?: number;
}

/**
 * Where run states are kept between steps, processes and machines. Saves are compare-and-set on
 * `revision`: the caller passes the revision it loaded and a state whose `revision` is one more, and
 * a store whose row moved on since refuses with `StateError` `stale_state`, changing nothing.
 */
export interface RunStore {
  /** Stores a new run (refused with `run_exists` when the id is taken, in the states or the trail). */
  create(state: RunState, options?: { records?: readonly AuditRecord[] }): Promise<void>;
  /** The stored state of a run, or `null`. */
  load(runId: string): Promise<RunState | null>;
  /** Compare-and-set on `revision`; see {@link SaveOptions}. */
  save(state: RunState, options: SaveOptions): Promise<void>;
  /**
   * The stored runs, optionally only those of a status (`awaiting_approval` is the inbox) and those
   * whose id starts with `runIdPrefix`. A run whose
   * state cannot be read is left out and reported to `onUnreadable`; it never fails the listing.
   */
  list(options?: ListOptions): Promise<RunState[]>;
  /**
   * The summaries of the stored runs, with the filters, order and paging of {@link ListOptions},
   * answered from the summaries the store keeps on every save: no run's state is read. The built-in
   * stores have it; for a store without it, `listSummaries(store, options)` reads `list()` instead.
   */
  summaries?(options?: ListOptions): Promise<SummaryPage>;
  /**
   * The store's change sequence: a counter that grows on every create, save and answer (never
   * reused, never goes back), so a watcher that saw the same value has nothing new to read.
   */
  changeSequence?(): Promise<number>;
  /**
   * Records a person's answer to the pending request of a paused run, for a later `resume(runId)`.
   * Refused with `stale_state` unless the run awaits approval and the digest is the pending one.
   */
  answer(runId: string, approval: Approval, options?: AnswerOptions): Promise<RunState>;
  /**
   * Gives a standing grant (API.md section 16): checked whole before anything is stored
   * (`invalid_option` naming the option), kept with a random id, and recorded as `grant_given` in
   * the store's trail under the run id `grant:<id>`. The built-in stores have it; a run's calls are
   * matched against the grants of its store when the store has {@link RunStore.grants}.
   */
  grant?(options: GrantOptions, give?: GiveGrantOptions): Promise<GrantInfo>;
  /** Revokes a standing grant, recorded as `grant_revoked`; an unknown id is `grant_not_found`. */
  revokeGrant?(id: string, options: RevokeGrantOptions): Promise<GrantInfo>;
  /** The store's standing grants, oldest first; `active: true` only those that can still approve. */
  grants?(options?: GrantsOptions): Promise<GrantInfo[]>;
  /**
   * Takes one use of a standing grant in a transaction of its own, by compare-and-set (see
   * {@link GrantUse}): what a run with a separate sink does just before the call's intent. @internal
   */
  takeGrantUse?(use: GrantUse): Promise<void>;
  /**
   * Creates or changes a shared budget (API.md section 17): sets the limits given (a limit left out
   * is removed) and keeps what was spent, recorded as `budget_set` under the run id `budget:<key>`.
   * Bad limits are `invalid_option` and nothing is stored.
   */
  setBudget?(key: string, limits: BudgetLimits, options?: BudgetChangeOptions): Promise<BudgetInfo>;
  /** A shared budget's limits and spend, or `null` when none is set under `key`. */
  budget?(key: string): Promise<BudgetInfo | null>;
  /** Sets a budget's spend back to zero, recorded as `budget_reset`; a key never set is `budget_not_found`. */
  resetBudget?(key: string, options?: BudgetChangeOptions): Promise<BudgetInfo>;
  /** Every shared budget of the store, by key. */
  budgets?(): Promise<BudgetInfo[]>;
  /**
   * Takes a charge from a budget in a transaction of its own (see {@link BudgetCharge}): what a run
   * with a separate sink does, just before the records it charges for. @internal
   */
  chargeBudget?(charge: BudgetCharge): Promise<void>;
  /**
   * Raises one limit of a shared budget for a person's raise of a budget limit request, atomically:
   * in one transaction the budget is read and, only when that limit is set and below `to`, set to
   * `to` (every other limit and the spend kept as stored then), recorded as `budget_set` under
   * `budget:<key>`. A limit at least `to` is never lowered and a removed limit never put back: then
   * nothing is changed or recorded. Returns the budget as it is after, or `null` when none is set
   * under `key` (nothing done). A `to` that is not a finite number above 0 (whole for the counts) is
   * `invalid_option` and nothing is written. @internal
   */
  raiseBudget?(
    key: string,
    limit: BudgetLimitName,
    to: number,
    options?: BudgetChangeOptions,
  ): Promise<BudgetInfo | null>;
  /**
   * The outbox (API.md section 19, "Webhooks"), newest first, optionally only events of a status;
   * paged with `limit` and the `next` cursor of the page before. Every save that makes a run await a
   * person, end or give up writes its event in the same transaction (see `notificationEventsOf`).
   */
  notifications?(options?: NotificationsOptions): Promise<NotificationPage>;
  /**
   * Hands a deliverer the pending events due at `now`, oldest first, and in the same transaction
   * moves their `nextAttemptAt` to `now + leaseMs`, so that no other deliverer takes them meanwhile.
   */
  claimNotifications?(options: ClaimNotificationsOptions): Promise<NotificationEvent[]>;
  /**
   * Records how a delivery went: `delivered`, or tried again at `nextAttemptAt` (`null`: `failed`).
   * Only a pending event changes; an unknown id changes nothing.
   */
  settleNotification?(id: string, outcome: NotificationOutcome): Promise<void>;
  /**
   * A deliverer's start. The first call ever on the store (remembered in it) marks `skipped` every
   * pending event created before `now - catchUpMs`, except the `approval_requested` events of runs
   * that still wait for that request; any later call changes nothing (`{ first: false, skipped: 0 }`).
   */
  startNotifications?(options: StartNotificationsOptions): Promise<StartNotificationsResult>;
  /**
   * Prunes the events delivered before `deliveredBefore`: they are no longer listed, and only their
   * key (run, type, request) is kept, so that a request still awaited is never announced again under
   * a new id. Returns how many.
   */
  pruneNotifications?(options: { deliveredBefore: Date }): Promise<number>;
  /** Releases what the store holds open. */
  close(): Promise<void>;
}

/** A store that also keeps the audit trail, so state and records commit together. */
export type RunStoreWithAudit = RunStore & AuditSink;

/** Whether a value has the methods of an {@link AuditSink}. */
export function isAuditSink(value: unknown): value is AuditSink {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AuditSink).append === "function" &&
    typeof (value as AuditSink).read === "function"
  );
}

/** Whether a value has the methods of a {@link RunStore}. */
export function isRunStore(value: unknown): value is RunStore {
  if (typeof value !== "object" || value === null) return false;
  const store = value as RunStore;
  return ["create", "load", "save", "list", "answer"].every(
    (method) => typeof (store as unknown as Record<string, unknown>)[method] === "function",
  );
}
