import type { AuditRecord } from "../audit/audit-record.js";
import type { RunState } from "../state/run-state.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "./notification-info.js";
import {
  checkClaimOptions,
  checkNotificationsOptions,
  checkOutcome,
  checkPruneOptions,
  checkStartOptions,
  notificationCursor,
  notificationEventsOf,
  pendingNotification,
  settledEvent,
} from "./notification-info.js";

/**
 * The notification outbox of a `MemoryStore` (API.md section 19): the events each save makes true,
 * each at most once per run, type and key, in the order they were written. Every method is
 * synchronous and throws what the store rejects with; the store calls `announce` inside its save.
 */
export class MemoryOutbox {
  /** The events, by `runId type key`, each with its position (the order it was written). */
  readonly #events = new Map<string, { position: number; event: NotificationEvent }>();
  /** The keys of pruned events: kept, so that a request still awaited is never announced again under a new id. */
  readonly #prunedKeys = new Set<string>();
  #positions = 0;
  /** Whether a deliverer has started on this store (see `start`). */
  #started = false;

  /** Writes the events a save made true, each at most once per run, type and key. */
  announce(state: RunState, records: readonly AuditRecord[] | undefined): void {
    const events = notificationEventsOf(state, records);
    if (events.length === 0) return;
    const now = new Date();
    for (const event of events) {
      const key = `${event.runId} ${event.type} ${event.key}`;
      if (this.#events.has(key) || this.#prunedKeys.has(key)) continue;
      this.#positions += 1;
      this.#events.set(key, { position: this.#positions, event: pendingNotification(event, now) });
    }
  }

  /** The outbox, newest first; see `RunStore.notifications`. */
  list(options?: NotificationsOptions): NotificationPage {
    const { status, limit, cursor } = checkNotificationsOptions(options);
    const all = [...this.#events.values()]
      .filter(
        (item) =>
          (status === undefined || item.event.status === status) && (cursor === undefined || item.position < cursor),
      )
      .sort((a, b) => b.position - a.position);
    const page = all.slice(0, limit);
    const next = all.length > limit ? notificationCursor(page[page.length - 1]!.position) : undefined;
    return { events: page.map((item) => structuredClone(item.event)), next };
  }

  /** The pending events due, oldest first, leased for `leaseMs`; see `RunStore.claimNotifications`. */
  claim(options: ClaimNotificationsOptions): NotificationEvent[] {
    const { now, limit, leaseMs } = checkClaimOptions(options);
    const due = [...this.#events.values()]
      .filter((item) => item.event.status === "pending" && Date.parse(item.event.nextAttemptAt!) <= now.getTime())
      .sort((a, b) => a.position - b.position)
      .slice(0, limit);
    const until = new Date(now.getTime() + leaseMs).toISOString();
    for (const item of due) item.event = { ...item.event, nextAttemptAt: until };
    return due.map((item) => structuredClone(item.event));
  }

  /** Records how a delivery went; see `RunStore.settleNotification`. */
  settle(id: string, outcome: NotificationOutcome): void {
    const checked = checkOutcome(id, outcome);
    for (const item of this.#events.values()) if (item.event.id === id) item.event = settledEvent(item.event, checked);
  }

  /**
   * A deliverer's start: the first skips what is too old to announce, but a request its run still
   * awaits (`stillAwaits`); see `RunStore.startNotifications`.
   */
  start(
    options: StartNotificationsOptions,
    stillAwaits: (runId: string, digest: string) => boolean,
  ): StartNotificationsResult {
    const { now, catchUpMs } = checkStartOptions(options);
    if (this.#started) return { first: false, skipped: 0 };
    this.#started = true;
    const before = now.getTime() - catchUpMs;
    let skipped = 0;
    for (const item of this.#events.values()) {
      const { event } = item;
      if (event.status !== "pending" || Date.parse(event.createdAt) >= before) continue;
      if (event.type === "approval_requested" && stillAwaits(event.runId, event.key)) continue;
      item.event = { ...event, status: "skipped", nextAttemptAt: null };
      skipped += 1;
    }
    return { first: true, skipped };
  }

  /** Prunes the events delivered before a time, keeping their keys; see `RunStore.pruneNotifications`. */
  prune(options: { deliveredBefore: Date }): number {
    const before = checkPruneOptions(options).getTime();
    let pruned = 0;
    for (const [key, item] of this.#events)
      if (item.event.status === "delivered" && Date.parse(item.event.deliveredAt!) < before) {
        this.#events.delete(key);
        this.#prunedKeys.add(key);
        pruned += 1;
      }
    return pruned;
  }
}
