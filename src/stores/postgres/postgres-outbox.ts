import type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationStatus,
  NotificationType,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "../notification-info.js";
import {
  awaitedRequests,
  checkClaimOptions,
  checkNotificationsOptions,
  checkOutcome,
  checkPruneOptions,
  checkStartOptions,
  notificationCursor,
} from "../notification-info.js";
import { budgetFunctionDefinitions } from "./postgres-budget-functions.js";
import { functionDefinitions } from "./postgres-functions.js";
import type { PostgresPool, PostgresQueryResult } from "./postgres-pool.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import { assembleRun, selectRuns } from "./postgres-runs.js";
import type { PostgresTables } from "./postgres-tables.js";

/** A dollar-quote tag that does not occur in `body`, so that no schema name can end the body early. */
function dollarQuote(body: string): string {
  let tag = "leash";
  while (body.includes(`$${tag}$`)) tag += "_";
  return `$${tag}$${body}$${tag}$`;
}

/**
 * Schema version 8: the notification outbox (API.md section 19, "Webhooks"). `leash_outbox` holds
 * one row per event, at most one per (run_id, type, key); `position` is the order written (the
 * listing's order and cursor). `data` and `timestamp` are text as leash wrote them (jsonb would
 * refuse a NUL escaped in a request's arguments). The functions of a create and a save take the
 * events as JSON text and insert them with `leash_outbox_add`, in the same statement as the save:
 * still one round trip, and a refused save (a raise) inserts none. Their old forms, without the
 * events, are dropped first (a new parameter is a new function in PostgreSQL). Runs paused before
 * this version have no event; the inbox still lists them.
 */
export function outboxDefinitions(tables: PostgresTables): string {
  const add = `
BEGIN
  INSERT INTO ${tables.outbox} (id, type, run_id, key, timestamp, data, status, attempts, next_attempt_at, created_at)
  SELECT event->>'id', event->>'type', p_run_id, event->>'key', event->>'timestamp', event->>'data',
    'pending', 0, clock_timestamp(), clock_timestamp()
  FROM json_array_elements(p_events::json) WITH ORDINALITY AS list (event, place)
  ORDER BY place
  ON CONFLICT (run_id, type, key) DO NOTHING;
END
`;
  const records = "text[], bigint[], text[], text[], text[]";
  const saveParameters = `text, bigint, bigint, text, integer, text, integer, boolean, integer[], text[], text, text, ${records}`;
  return `
  CREATE TABLE IF NOT EXISTS ${tables.outbox} (
    position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    type text NOT NULL,
    run_id text NOT NULL,
    key text NOT NULL,
    timestamp text NOT NULL,
    data text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL,
    next_attempt_at timestamptz,
    last_error text,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL,
    UNIQUE (run_id, type, key)
  );
  CREATE INDEX IF NOT EXISTS leash_outbox_due ON ${tables.outbox} (status, next_attempt_at);
  CREATE INDEX IF NOT EXISTS leash_outbox_by_status ON ${tables.outbox} (status, position);
  CREATE OR REPLACE FUNCTION ${tables.addEvents}(p_run_id text, p_events text)
  RETURNS void LANGUAGE plpgsql AS ${dollarQuote(add)};
  DROP FUNCTION IF EXISTS ${tables.saveRunCharged}(${saveParameters}, text, double precision, double precision, double precision, text);
  DROP FUNCTION IF EXISTS ${tables.saveRun}(${saveParameters});
  DROP FUNCTION IF EXISTS ${tables.createRun}(text, bigint, text, integer, text, integer, integer[], text[], text, text, ${records});
  ${functionDefinitions(tables, true)}
  ${budgetFunctionDefinitions(tables, true)}
  `;
}

/** A time column as ISO 8601 text, as `Date.toISOString` writes it, whatever the pool's type parsers. */
function isoOf(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

function columns(alias: string): string {
  return `${alias}.position, ${alias}.id, ${alias}.type, ${alias}.run_id, ${alias}.key, ${alias}.timestamp, ${alias}.data,
    ${alias}.status, ${alias}.attempts, ${isoOf(`${alias}.next_attempt_at`)} AS next_attempt_at, ${alias}.last_error,
    ${isoOf(`${alias}.delivered_at`)} AS delivered_at, ${isoOf(`${alias}.created_at`)} AS created_at`;
}

type Row = PostgresQueryResult["rows"][number];

const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

function eventOf(row: Row): NotificationEvent {
  return {
    id: String(row.id),
    type: String(row.type) as NotificationType,
    runId: String(row.run_id),
    key: String(row.key),
    timestamp: String(row.timestamp),
    data: JSON.parse(String(row.data)) as Record<string, unknown>,
    status: String(row.status) as NotificationStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: textOrNull(row.next_attempt_at),
    lastError: textOrNull(row.last_error),
    deliveredAt: textOrNull(row.delivered_at),
    createdAt: String(row.created_at),
  };
}

/** One page of the outbox, newest first; see `RunStore.notifications`. */
export async function listNotifications(
  pool: PostgresPool,
  tables: PostgresTables,
  options: NotificationsOptions | undefined,
): Promise<NotificationPage> {
  const { status, limit, cursor } = checkNotificationsOptions(options);
  const values: unknown[] = [cursor ?? Number.MAX_SAFE_INTEGER, limit + 1];
  let where = "outbox.position < $1 AND outbox.status <> 'pruned'";
  if (status !== undefined) {
    values.push(status);
    where += ` AND outbox.status = $${values.length}`;
  }
  const result = await queryOnce(
    pool,
    "listing the notification outbox",
    `SELECT ${columns("outbox")} FROM ${tables.outbox} AS outbox WHERE ${where} ORDER BY outbox.position DESC LIMIT $2`,
    values,
  );
  const rows = result.rows.slice(0, limit);
  const more = result.rows.length > limit;
  const last = rows.at(-1);
  return {
    events: rows.map(eventOf),
    next: more && last !== undefined ? notificationCursor(Number(last.position)) : undefined,
  };
}

/**
 * Leases the due pending events, oldest first, in one statement: the rows are locked with `FOR
 * UPDATE SKIP LOCKED`, so that deliverers claiming at the same moment take different events, and
 * their next attempt moved to the lease's end; see `RunStore.claimNotifications`.
 */
export async function claimNotifications(
  pool: PostgresPool,
  tables: PostgresTables,
  options: ClaimNotificationsOptions,
): Promise<NotificationEvent[]> {
  const { now, limit, leaseMs } = checkClaimOptions(options);
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const result = await queryOnce(
    pool,
    "claiming notifications",
    `WITH due AS (
       SELECT position FROM ${tables.outbox}
       WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz
       ORDER BY position LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE ${tables.outbox} AS outbox SET next_attempt_at = $3::timestamptz
     FROM due WHERE outbox.position = due.position
     RETURNING ${columns("outbox")}`,
    [now.toISOString(), limit, until],
  );
  return result.rows.toSorted((a, b) => Number(a.position) - Number(b.position)).map(eventOf);
}

/** Records how a delivery went, on a pending event only, in one statement; see `RunStore.settleNotification`. */
export async function settleNotification(
  pool: PostgresPool,
  tables: PostgresTables,
  id: string,
  outcome: NotificationOutcome,
): Promise<void> {
  const checked = checkOutcome(id, outcome);
  if (checked.delivered) {
    await queryOnce(
      pool,
      "settling a notification",
      `UPDATE ${tables.outbox} SET status = 'delivered', attempts = attempts + 1, next_attempt_at = NULL,
         last_error = NULL, delivered_at = $2::timestamptz
       WHERE id = $1 AND status = 'pending'`,
      [id, checked.at.toISOString()],
    );
    return;
  }
  const next = checked.nextAttemptAt;
  await queryOnce(
    pool,
    "settling a notification",
    `UPDATE ${tables.outbox} SET status = $2, attempts = $3, last_error = $4, next_attempt_at = $5::timestamptz
     WHERE id = $1 AND status = 'pending'`,
    [
      id,
      next === null ? "failed" : "pending",
      checked.attempts,
      checked.error,
      next === null ? null : next.toISOString(),
    ],
  );
}

/**
 * A deliverer's start, in one transaction: the row `outbox_started` of `leash_meta`, inserted unless
 * there, says whether it is the schema's first; the first marks the old pending events skipped, but
 * a request its run still awaits (the run's state read in the same transaction). See
 * `RunStore.startNotifications`.
 */
export async function startNotifications(
  pool: PostgresPool,
  tables: PostgresTables,
  options: StartNotificationsOptions,
): Promise<StartNotificationsResult> {
  const { now, catchUpMs } = checkStartOptions(options);
  const before = new Date(now.getTime() - catchUpMs).toISOString();
  return inTransaction(pool, "starting the notification outbox", async (client) => {
    const started = await client.query(
      `INSERT INTO ${tables.meta} (key, value) VALUES ('outbox_started', $1) ON CONFLICT (key) DO NOTHING RETURNING key`,
      [now.toISOString()],
    );
    if (started.rows.length === 0) return { first: false, skipped: 0 };
    const old = await client.query(
      `SELECT position, type, run_id, key FROM ${tables.outbox}
       WHERE status = 'pending' AND created_at < $1::timestamptz ORDER BY position FOR UPDATE`,
      [before],
    );
    const asked = [
      ...new Set(old.rows.filter((row) => row.type === "approval_requested").map((row) => String(row.run_id))),
    ];
    const awaited = new Set<string>();
    if (asked.length > 0) {
      const runs = await client.query(selectRuns(tables, "WHERE runs.run_id = ANY ($1::text[])"), [asked]);
      for (const row of runs.rows) {
        try {
          const state = assembleRun(row);
          for (const request of awaitedRequests(state)) awaited.add(`${state.runId} ${request.digest}`);
        } catch {
          // A run whose state cannot be read awaits nothing the outbox can vouch for.
        }
      }
    }
    const skip = old.rows
      .filter((row) => !(row.type === "approval_requested" && awaited.has(`${String(row.run_id)} ${String(row.key)}`)))
      .map((row) => Number(row.position));
    if (skip.length > 0)
      await client.query(
        `UPDATE ${tables.outbox} SET status = 'skipped', next_attempt_at = NULL WHERE position = ANY ($1::bigint[])`,
        [skip],
      );
    return { first: true, skipped: skip.length };
  });
}

/** Empties and unlists the events delivered before a time; see `RunStore.pruneNotifications`. */
export async function pruneNotifications(
  pool: PostgresPool,
  tables: PostgresTables,
  options: { deliveredBefore: Date },
): Promise<number> {
  const before = checkPruneOptions(options);
  const result = await queryOnce(
    pool,
    "pruning the notification outbox",
    // A pruned event keeps its row, emptied, as the key that stops a request still awaited from
    // being announced again under a new id; it is listed no more.
    `UPDATE ${tables.outbox} SET status = 'pruned', data = '{}', last_error = NULL
     WHERE status = 'delivered' AND delivered_at < $1::timestamptz`,
    [before.toISOString()],
  );
  return (result as { rowCount?: number | null }).rowCount ?? 0;
}
