import type { Database, Statement } from "better-sqlite3";
import type { NotificationEvent, NotificationStatus, NotificationType } from "../notification-info.js";
import { awaitedRequests, newNotificationId } from "../notification-info.js";
import type { RunState } from "../../state/run-state.js";

/** An event as a save writes it: its data already JSON text, made when the save was asked for. @internal */
export interface OutboxWrite {
  type: NotificationType;
  key: string;
  timestamp: string;
  data: string;
}

interface OutboxRow {
  position: number;
  id: string;
  type: string;
  run_id: string;
  key: string;
  timestamp: string;
  data: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

const COLUMNS =
  "position, id, type, run_id, key, timestamp, data, status, attempts, next_attempt_at, last_error, delivered_at, created_at";

function eventOf(row: OutboxRow): NotificationEvent {
  return {
    id: row.id,
    type: row.type as NotificationType,
    runId: row.run_id,
    key: row.key,
    timestamp: row.timestamp,
    data: JSON.parse(row.data) as Record<string, unknown>,
    status: row.status as NotificationStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
  };
}

/**
 * The `leash_outbox` table of a {@link SqliteStore} (schema version 7): the events a save made true,
 * inserted in that save's savepoint, at most one per `(run_id, type, key)`. Times are ISO 8601 text
 * as `Date.toISOString` gives it, so they compare as text. Every write runs inside a batch's
 * `BEGIN IMMEDIATE` transaction, which holds the file's write lock: a claim read and leased there is
 * never handed to another process's claim meanwhile.
 */
export class SqliteOutbox {
  readonly #insert: Statement<[string, string, string, string, string, string, string, string], unknown>;
  readonly #page: Statement<[number, number], OutboxRow>;
  readonly #pageOf: Statement<[string, number, number], OutboxRow>;
  readonly #due: Statement<[string, number], OutboxRow>;
  readonly #lease: Statement<[string, number], unknown>;
  readonly #byId: Statement<[string], OutboxRow>;
  readonly #settle: Statement<[string, number, string | null, string | null, string | null, number], unknown>;
  readonly #started: Statement<[], unknown>;
  readonly #old: Statement<[string], OutboxRow>;
  readonly #skip: Statement<[number], unknown>;
  readonly #prune: Statement<[string], unknown>;

  constructor(database: Database) {
    this.#insert = database.prepare(
      "INSERT INTO leash_outbox (id, type, run_id, key, timestamp, data, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (run_id, type, key) DO NOTHING",
    );
    this.#page = database.prepare(
      `SELECT ${COLUMNS} FROM leash_outbox WHERE position < ? AND status <> 'pruned' ORDER BY position DESC LIMIT ?`,
    );
    this.#pageOf = database.prepare(
      `SELECT ${COLUMNS} FROM leash_outbox WHERE status = ? AND position < ? ORDER BY position DESC LIMIT ?`,
    );
    this.#due = database.prepare(
      `SELECT ${COLUMNS} FROM leash_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY position LIMIT ?`,
    );
    this.#lease = database.prepare("UPDATE leash_outbox SET next_attempt_at = ? WHERE position = ?");
    this.#byId = database.prepare(`SELECT ${COLUMNS} FROM leash_outbox WHERE id = ?`);
    this.#settle = database.prepare(
      "UPDATE leash_outbox SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?, delivered_at = ? WHERE position = ? AND status = 'pending'",
    );
    this.#started = database.prepare(
      "INSERT INTO leash_meta (key, value) VALUES ('outbox_started', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT (key) DO NOTHING",
    );
    this.#old = database.prepare(
      `SELECT ${COLUMNS} FROM leash_outbox WHERE status = 'pending' AND created_at < ? ORDER BY position`,
    );
    this.#skip = database.prepare(
      "UPDATE leash_outbox SET status = 'skipped', next_attempt_at = NULL WHERE position = ? AND status = 'pending'",
    );
    // A pruned event keeps its row, emptied, as the key that stops a request still awaited from
    // being announced again under a new id; it is listed no more.
    this.#prune = database.prepare(
      "UPDATE leash_outbox SET status = 'pruned', data = '{}', last_error = NULL WHERE status = 'delivered' AND delivered_at < ?",
    );
  }

  /** Inserts a save's events, each unless its run, type and key are there already; inside the save's savepoint. */
  insert(runId: string, events: readonly OutboxWrite[]): void {
    if (events.length === 0) return;
    const now = new Date().toISOString();
    for (const event of events)
      this.#insert.run(newNotificationId(), event.type, runId, event.key, event.timestamp, event.data, now, now);
  }

  /** One page, newest first, before the position `before` (exclusive); one more row than asked tells of a next page. */
  page(
    status: NotificationStatus | undefined,
    before: number,
    limit: number,
  ): { events: NotificationEvent[]; last: number | undefined; more: boolean } {
    const rows = status === undefined ? this.#page.all(before, limit + 1) : this.#pageOf.all(status, before, limit + 1);
    const more = rows.length > limit;
    const kept = rows.slice(0, limit);
    return { events: kept.map(eventOf), last: kept.at(-1)?.position, more };
  }

  /** Leases the due events, oldest first, inside a write's transaction. */
  claim(now: Date, limit: number, leaseMs: number): NotificationEvent[] {
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const rows = this.#due.all(now.toISOString(), limit);
    for (const row of rows) {
      this.#lease.run(until, row.position);
      row.next_attempt_at = until;
    }
    return rows.map(eventOf);
  }

  /** The event of an id, or `undefined`. */
  get(id: string): { position: number; event: NotificationEvent } | undefined {
    const row = this.#byId.get(id);
    return row === undefined ? undefined : { position: row.position, event: eventOf(row) };
  }

  /** Writes a settled event's delivery fields, when it is still pending. */
  settle(position: number, event: NotificationEvent): void {
    this.#settle.run(event.status, event.attempts, event.nextAttemptAt, event.lastError, event.deliveredAt, position);
  }

  /**
   * The first start of a deliverer on the file, inside a write's transaction: `false` when one started
   * before; else marks the pending events created before `before` skipped, but a request its run
   * (read with `load`) still awaits, and returns how many.
   */
  start(before: Date, load: (runId: string) => RunState | null): number | false {
    if ((this.#started.run() as { changes: number }).changes === 0) return false;
    let skipped = 0;
    const states = new Map<string, RunState | null>();
    for (const row of this.#old.all(before.toISOString())) {
      if (row.type === "approval_requested") {
        if (!states.has(row.run_id)) {
          let state: RunState | null;
          try {
            state = load(row.run_id);
          } catch {
            state = null;
          }
          states.set(row.run_id, state);
        }
        const state = states.get(row.run_id);
        if (state != null && awaitedRequests(state).some((request) => request.digest === row.key)) continue;
      }
      this.#skip.run(row.position);
      skipped += 1;
    }
    return skipped;
  }

  /** Deletes the events delivered before a time; returns how many. */
  prune(before: Date): number {
    return (this.#prune.run(before.toISOString()) as { changes: number }).changes;
  }
}
