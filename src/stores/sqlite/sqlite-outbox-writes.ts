import type { StoreReader as Reader, StoreWriter as Writer } from "./sqlite-prepared.js";
import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "../notification-info.js";
import {
  checkClaimOptions,
  checkNotificationsOptions,
  checkOutcome,
  checkPruneOptions,
  checkStartOptions,
  notificationCursor,
  settledEvent,
} from "../notification-info.js";

/**
 * The outbox methods of a {@link SqliteStore}: reads on the connection, and writes (a claim's lease,
 * a settlement, a first start, a prune) through its batches, each inside the `BEGIN IMMEDIATE`
 * transaction that holds the file's write lock, so that what a write reads holds until it commits.
 */
export class SqliteOutboxWrites {
  readonly #read: Reader;
  readonly #write: Writer;

  constructor(read: Reader, write: Writer) {
    this.#read = read;
    this.#write = write;
  }

  list(options: NotificationsOptions | undefined): Promise<NotificationPage> {
    return this.#read({ method: "notifications" }, (prepared) => {
      const { status, limit, cursor } = checkNotificationsOptions(options);
      const page = prepared.outbox.page(status, cursor ?? Number.MAX_SAFE_INTEGER, limit);
      return {
        events: page.events,
        next: page.more && page.last !== undefined ? notificationCursor(page.last) : undefined,
      };
    });
  }

  async claim(options: ClaimNotificationsOptions): Promise<NotificationEvent[]> {
    let claimed: NotificationEvent[] = [];
    await this.#write({ method: "claimNotifications" }, () => {
      const { now, limit, leaseMs } = checkClaimOptions(options);
      return {
        apply: (prepared) => {
          claimed = prepared.outbox.claim(now, limit, leaseMs);
        },
        committed: () => undefined,
      };
    });
    return claimed;
  }

  async settle(id: string, outcome: NotificationOutcome): Promise<void> {
    await this.#write({ method: "settleNotification" }, () => {
      const checked = checkOutcome(id, outcome);
      return {
        apply: (prepared) => {
          const stored = prepared.outbox.get(id);
          if (stored === undefined || stored.event.status !== "pending") return;
          prepared.outbox.settle(stored.position, settledEvent(stored.event, checked));
        },
        committed: () => undefined,
      };
    });
  }

  async start(options: StartNotificationsOptions): Promise<StartNotificationsResult> {
    let result: StartNotificationsResult = { first: false, skipped: 0 };
    await this.#write({ method: "startNotifications" }, () => {
      const { now, catchUpMs } = checkStartOptions(options);
      return {
        apply: (prepared) => {
          const skipped = prepared.outbox.start(new Date(now.getTime() - catchUpMs), (runId) =>
            prepared.runs.load(runId),
          );
          result = skipped === false ? { first: false, skipped: 0 } : { first: true, skipped };
        },
        committed: () => undefined,
      };
    });
    return result;
  }

  async prune(options: { deliveredBefore: Date }): Promise<number> {
    let pruned = 0;
    await this.#write({ method: "pruneNotifications" }, () => {
      const before = checkPruneOptions(options);
      return {
        apply: (prepared) => {
          pruned = prepared.outbox.prune(before);
        },
        committed: () => undefined,
      };
    });
    return pruned;
  }
}
