import type { Approval } from "../approvals/approval.js";
import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import type { SyncReadableAuditSink } from "../audit/audit-sink.js";
import { MemoryAuditSink } from "../audit/memory-audit-sink.js";
import { checkChain } from "../audit/chain-heads.js";
import { StateError } from "../errors/index.js";
import { RunState } from "../state/run-state.js";
import { recordAnswer } from "./record-answer.js";
import { settledSteps } from "./written-steps.js";
import { checkListOptions, readEach, reportUnreadable } from "./list-runs.js";
import type { AnswerOptions, ListOptions, RunStore, SaveOptions } from "./run-store.js";
import { summaryOf } from "./run-summary.js";
import type { RunSummary, SummaryPage } from "./run-summary.js";
import { summaryPage } from "./summary-page.js";
import type {
  GiveGrantOptions,
  GrantInfo,
  GrantOptions,
  GrantUse,
  GrantsOptions,
  RevokeGrantOptions,
} from "./grant-info.js";
import {
  checkGiveOptions,
  checkGrantsOptions,
  checkRevoke,
  filterGrants,
  grantGivenRecord,
  grantNotFound,
  grantRevokedRecord,
  grantRunId,
  newGrant,
  refuseReservedRunId,
  distinctUses,
  useRefusal,
  useRefused,
} from "./grant-options.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits } from "./budget-info.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "./notification-info.js";
import { awaitedRequests } from "./notification-info.js";
import { MemoryOutbox } from "./memory-outbox.js";
import type { BudgetLimitName } from "./budget-raise.js";
import { checkBudgetRaise, raisedBudget } from "./budget-raise.js";
import {
  budgetNotFound,
  budgetRefused,
  budgetResetRecord,
  budgetRunId,
  budgetSetRecord,
  budgetStop,
  chargedSpent,
  checkBudgetCharge,
  checkBudgetKey,
  checkBudgetLimits,
  checkChangeOptions,
} from "./budget-info.js";

/** Checks the revision contract of a save, for every store alike. */
export function checkSaveRevision(state: RunState, options: SaveOptions): void {
  if (!Number.isSafeInteger(options.expectedRevision) || state.revision !== options.expectedRevision + 1) {
    throw new StateError(
      "invalid_state",
      `A save must carry revision expectedRevision + 1 (got ${state.revision} for expected ${options.expectedRevision}).`,
    );
  }
}

/**
 * A stored run: its saved form as JSON text in parts (the header, without steps or `ran`, and one text
 * per step, as the SQL stores keep it), the revision saves compare on, and the summary listings read.
 */
interface StoredRun {
  revision: number;
  header: string;
  steps: string[];
  /** How many leading steps had an outcome when written: those never change again. */
  settled: number;
  /** What a listing shows of the run, as of this save. */
  summary: RunSummary;
}

/**
 * The stored form of `state`, written over `previous` (the run as stored, or none): only the steps
 * from the first one that had no outcome at the previous save are turned into text again, since a
 * step whose `outcome` is set never changes (the rule the SQL stores' step rows rely on too), so a
 * save after step N costs the same at any N. Everything is turned into text before anything of
 * `previous` is changed, so a state that cannot be written leaves the stored run as it was.
 */
function storedOf(state: RunState, change: number, previous?: StoredRun): StoredRun {
  const count = state.steps.length;
  const keep = previous === undefined || count < previous.steps.length ? 0 : Math.min(previous.settled, count);
  const header = state.headerText();
  const texts: string[] = [];
  for (let index = keep; index < count; index++) texts.push(state.stepText(index));
  let steps = texts;
  if (previous !== undefined && keep > 0) {
    steps = previous.steps;
    steps.length = keep;
    for (const text of texts) steps.push(text);
  }
  const summary = summaryOf(state, change);
  return { revision: state.revision, header, steps, settled: settledSteps(state, keep), summary };
}

/** A stored run as a fresh state, checked. */
/** What a synchronous step returns, as a promise: what it throws is the rejection. */
function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function stateOf(stored: StoredRun): RunState {
  return RunState.fromParts(stored.header, stored.steps);
}

/**
 * A {@link RunStore} and audit sink in memory, for tests and single-process use. Each save and the
 * records that led to it are applied together; copies go in and out, so no caller shares its objects.
 */
export class MemoryStore implements RunStore, SyncReadableAuditSink {
  // Kept as JSON text: turning a state into text is its copy in, cheaper than the deep copy of
  // `toJSON()`, and a save (two per step) is far more frequent than a load, which parses it. Kept in
  // parts, a header and a text per step, so a save writes only what may have changed.
  readonly #states = new Map<string, StoredRun>();
  readonly #trail = new MemoryAuditSink();
  /** The last record of each run's chain, so appends can be checked to continue it. */
  readonly #heads = new Map<string, AuditHead>();
  /** The change sequence: bumped by every create and save (an answer is a save). */
  #changes = 0;
  /** The standing grants, in the order given, each with the tool declaration its first use pinned. */
  readonly #grants = new Map<string, { info: GrantInfo; pin: string | null }>();
  /** The shared budgets, by key. */
  readonly #budgets = new Map<string, BudgetInfo>();
  /** The notification outbox: the events each save made true. */
  readonly #outbox = new MemoryOutbox();

  create(state: RunState, options: { records?: readonly AuditRecord[] } = {}): Promise<void> {
    try {
      refuseReservedRunId(state.runId);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.#states.has(state.runId) || this.#heads.has(state.runId)) {
      return Promise.reject(
        new StateError("run_exists", `Run \`${state.runId}\` exists already.`, { details: { runId: state.runId } }),
      );
    }
    try {
      if (options.records !== undefined) this.#checkContinuation(options.records);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    this.#states.set(state.runId, storedOf(state, this.#changes + 1));
    this.#changes += 1;
    if (options.records !== undefined) this.append(options.records);
    this.#announce(state, options.records);
    return Promise.resolve();
  }

  load(runId: string): Promise<RunState | null> {
    try {
      const stored = this.#states.get(runId);
      return Promise.resolve(stored === undefined ? null : stateOf(stored));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  save(state: RunState, options: SaveOptions): Promise<void> {
    try {
      checkSaveRevision(state, options);
      const stored = this.#states.get(state.runId);
      if (stored === undefined) throw new StateError("run_not_found", `No run \`${state.runId}\` in the store.`);
      if (stored.revision !== options.expectedRevision) {
        throw new StateError(
          "stale_state",
          `Run \`${state.runId}\` is at revision ${stored.revision}, not ${options.expectedRevision}: another process moved it.`,
          { details: { runId: state.runId, stored: stored.revision, expected: options.expectedRevision } },
        );
      }
      if (options.records !== undefined) this.#checkContinuation(options.records);
      const uses = distinctUses(options.grantUses);
      for (const use of uses) this.#checkUse(use);
      if (options.budgetCharge !== undefined) this.#checkCharge(options.budgetCharge);
      // The map keeps a key where it was first set, so its order stays the order of creation.
      this.#states.set(state.runId, storedOf(state, this.#changes + 1, stored));
      this.#changes += 1;
      if (options.records !== undefined) this.append(options.records);
      for (const use of uses) this.#takeUse(use);
      if (options.budgetCharge !== undefined) this.#takeCharge(options.budgetCharge);
      this.#announce(state, options.records);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Gives a standing grant; see `RunStore.grant`. */
  grant(options: GrantOptions, give?: GiveGrantOptions): Promise<GrantInfo> {
    try {
      const origin = checkGiveOptions(give);
      const info = newGrant(options, new Date());
      this.append([grantGivenRecord(info, origin)]);
      this.#grants.set(info.id, { info, pin: null });
      return Promise.resolve(structuredClone(info));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Revokes a standing grant; revoking it again changes nothing. See `RunStore.revokeGrant`. */
  revokeGrant(id: string, options: RevokeGrantOptions): Promise<GrantInfo> {
    try {
      const revoked = checkRevoke(id, options, new Date());
      const stored = this.#grants.get(id);
      if (stored === undefined) throw grantNotFound(id);
      if (stored.info.revoked === undefined) {
        const info = { ...stored.info, revoked };
        this.append([grantRevokedRecord(info, this.#heads.get(grantRunId(id))!)]);
        stored.info = info;
      }
      return Promise.resolve(structuredClone(stored.info));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The standing grants, oldest first; see `RunStore.grants`. */
  grants(options?: GrantsOptions): Promise<GrantInfo[]> {
    try {
      const all = [...this.#grants.values()].map((stored) => stored.info);
      return Promise.resolve(structuredClone(filterGrants(all, checkGrantsOptions(options), new Date())));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Takes one use of a standing grant by compare-and-set. @internal */
  takeGrantUse(use: GrantUse): Promise<void> {
    try {
      this.#checkUse(use);
      this.#takeUse(use);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #checkUse(use: GrantUse): void {
    const stored = this.#grants.get(use.grant);
    const reason = useRefusal(stored?.info, stored?.pin ?? null, use);
    if (reason !== undefined) throw useRefused(use, reason);
  }

  #takeUse(use: GrantUse): void {
    const stored = this.#grants.get(use.grant)!;
    stored.info = { ...stored.info, uses: use.use };
    stored.pin ??= use.toolDigest;
  }

  /** Creates or changes a shared budget, keeping its spend; see `RunStore.setBudget`. */
  setBudget(key: string, limits: BudgetLimits, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    try {
      checkBudgetKey(key);
      const checked = checkBudgetLimits(limits);
      const change = checkChangeOptions(options, "setBudget");
      const stored = this.#budgets.get(key);
      const info: BudgetInfo = { key, ...checked, spent: stored?.spent ?? { cost: 0, tokens: 0, toolCalls: 0 } };
      this.append([budgetSetRecord(info, change, this.#heads.get(budgetRunId(key)) ?? null, new Date().toISOString())]);
      this.#budgets.set(key, info);
      return Promise.resolve(structuredClone(info));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Raises one limit of a budget when it is set and below `to`, recorded; see `RunStore.raiseBudget`.
   * Read and written in one turn, so no other change of the budget comes in between. @internal
   */
  raiseBudget(
    key: string,
    limit: BudgetLimitName,
    to: number,
    options?: BudgetChangeOptions,
  ): Promise<BudgetInfo | null> {
    try {
      const raise = checkBudgetRaise(key, limit, to, options);
      const stored = this.#budgets.get(raise.key);
      if (stored === undefined) return Promise.resolve(null);
      const info = raisedBudget(stored, raise);
      if (info === undefined) return Promise.resolve(structuredClone(stored));
      const head = this.#heads.get(budgetRunId(raise.key)) ?? null;
      this.append([budgetSetRecord(info, raise.change, head, new Date().toISOString())]);
      this.#budgets.set(raise.key, info);
      return Promise.resolve(structuredClone(info));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A shared budget, or `null`; see `RunStore.budget`. */
  budget(key: string): Promise<BudgetInfo | null> {
    try {
      checkBudgetKey(key);
      const stored = this.#budgets.get(key);
      return Promise.resolve(stored === undefined ? null : structuredClone(stored));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Sets a budget's spend back to zero, recorded; see `RunStore.resetBudget`. */
  resetBudget(key: string, options?: BudgetChangeOptions): Promise<BudgetInfo> {
    try {
      checkBudgetKey(key);
      const change = checkChangeOptions(options, "resetBudget");
      const stored = this.#budgets.get(key);
      if (stored === undefined) throw budgetNotFound(key);
      const head = this.#heads.get(budgetRunId(key))!;
      this.append([budgetResetRecord(stored, change, head, new Date().toISOString())]);
      const info: BudgetInfo = { ...stored, spent: { cost: 0, tokens: 0, toolCalls: 0 } };
      this.#budgets.set(key, info);
      return Promise.resolve(structuredClone(info));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Every shared budget, by key; see `RunStore.budgets`. */
  budgets(): Promise<BudgetInfo[]> {
    const all = [...this.#budgets.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return Promise.resolve(structuredClone(all));
  }

  /** Takes a charge from a budget on its own; see `RunStore.chargeBudget`. @internal */
  chargeBudget(charge: BudgetCharge): Promise<void> {
    try {
      this.#checkCharge(charge);
      this.#takeCharge(charge);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #checkCharge(charge: BudgetCharge): void {
    checkBudgetCharge(charge);
    const budget = this.#budgets.get(charge.key);
    if (budget === undefined || charge.check !== "tool") return;
    const reason = budgetStop(budget, charge);
    if (reason !== undefined) throw budgetRefused(budget, reason);
  }

  #takeCharge(charge: BudgetCharge): void {
    const budget = this.#budgets.get(charge.key);
    if (budget === undefined) return;
    this.#budgets.set(charge.key, { ...budget, spent: chargedSpent(budget.spent, charge) });
  }

  /**
   * The stored runs with the filters, order and paging of {@link ListOptions}, the same runs in the
   * same order as {@link summaries}; a run whose state cannot be read is left out and reported to
   * `onUnreadable`.
   */
  list(options?: ListOptions): Promise<RunState[]> {
    try {
      const checked = checkListOptions(options);
      const { runs } = this.#page(checked);
      const { states, unreadable } = readEach(
        runs,
        (run) => run.runId,
        (run) => stateOf(this.#states.get(run.runId)!),
      );
      reportUnreadable(checked, unreadable);
      return Promise.resolve(states);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** One page of the summaries of the stored runs; see {@link ListOptions}. */
  summaries(options?: ListOptions): Promise<SummaryPage> {
    try {
      const page = this.#page(checkListOptions(options));
      return Promise.resolve({ runs: page.runs.map((run) => ({ ...run })), next: page.next });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The store's change sequence: how many creates and saves (answers included) it has taken. */
  changeSequence(): Promise<number> {
    return Promise.resolve(this.#changes);
  }

  #page(options: ListOptions): SummaryPage {
    const created: RunSummary[] = [];
    for (const stored of this.#states.values()) created.push(stored.summary);
    return summaryPage(created, options);
  }

  answer(runId: string, approval: Approval, options?: AnswerOptions): Promise<RunState> {
    return recordAnswer(this, runId, approval, options);
  }

  /**
   * Appends records that continue their runs' chains; a record whose seq is taken already is refused
   * with `stale_state` (another writer moved the chain) and a gap or a wrong link with
   * `audit_corrupt`, and then nothing is appended.
   */
  append(records: readonly AuditRecord[]): void {
    this.#checkContinuation(records);
    this.#trail.append(records);
    for (const record of records) this.#heads.set(record.run, { seq: record.seq, digest: record.digest });
  }

  #checkContinuation(records: readonly AuditRecord[]): void {
    checkChain(records, (runId) => this.#heads.get(runId) ?? null);
  }

  read(runId?: string): Promise<AuditRecord[]> {
    return this.#trail.read(runId);
  }

  /** Every record held, each run's in `seq` order. */
  get records(): AuditRecord[] {
    return this.#trail.records;
  }

  /** Writes the events a save made true, each at most once per run, type and key. */
  #announce(state: RunState, records: readonly AuditRecord[] | undefined): void {
    this.#outbox.announce(state, records);
  }

  /** The outbox, newest first; see `RunStore.notifications`. */
  notifications(options?: NotificationsOptions): Promise<NotificationPage> {
    return settle(() => this.#outbox.list(options));
  }

  /** The pending events due, oldest first, leased for `leaseMs`; see `RunStore.claimNotifications`. */
  claimNotifications(options: ClaimNotificationsOptions): Promise<NotificationEvent[]> {
    return settle(() => this.#outbox.claim(options));
  }

  /** Records how a delivery went; see `RunStore.settleNotification`. */
  settleNotification(id: string, outcome: NotificationOutcome): Promise<void> {
    return settle(() => this.#outbox.settle(id, outcome));
  }

  /** A deliverer's start: the first skips what is too old to announce; see `RunStore.startNotifications`. */
  startNotifications(options: StartNotificationsOptions): Promise<StartNotificationsResult> {
    return settle(() => this.#outbox.start(options, (runId, digest) => this.#stillAwaits(runId, digest)));
  }

  #stillAwaits(runId: string, digest: string): boolean {
    const stored = this.#states.get(runId);
    if (stored === undefined) return false;
    try {
      return awaitedRequests(stateOf(stored)).some((request) => request.digest === digest);
    } catch {
      return false;
    }
  }

  /** Prunes the events delivered before a time, keeping their keys; see `RunStore.pruneNotifications`. */
  pruneNotifications(options: { deliveredBefore: Date }): Promise<number> {
    return settle(() => this.#outbox.prune(options));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
