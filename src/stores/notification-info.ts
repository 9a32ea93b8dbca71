import { randomBytes } from "node:crypto";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { LeashError } from "../errors/index.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { RunState } from "../state/run-state.js";

/** What a notification announces (API.md section 19, "Webhooks"). */
export type NotificationType = "approval_requested" | "run_ended" | "gave_up";

/** Where an event of the outbox stands: waiting to be sent, sent, given up on, or never to be sent. */
export type NotificationStatus = "pending" | "delivered" | "failed" | "skipped";

/** Every notification status. */
export const NOTIFICATION_STATUSES: readonly NotificationStatus[] = ["pending", "delivered", "failed", "skipped"];

/**
 * One event of a store's outbox: written in the same transaction as the save that made it true, at
 * most once per `(runId, type, key)`, and delivered at least once under its `id`.
 */
export interface NotificationEvent {
  /** `msg_` and 32 lowercase hex digits, random, made once when the event was written: the `webhook-id`. */
  id: string;
  type: NotificationType;
  runId: string;
  /** What makes the event one of its kind for the run: a request's digest, `end`, or `gave_up`. */
  key: string;
  /** When it happened (ISO 8601): the save's time, or the `gave_up` record's. */
  timestamp: string;
  /** What the event says; plain machine data, escaped nowhere. */
  data: Record<string, unknown>;
  status: NotificationStatus;
  /** How many deliveries were tried. */
  attempts: number;
  /** When the next delivery may be tried (ISO 8601); `null` once the event is not pending. */
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** One page of the outbox, newest first; `next` is the cursor of the following page, if any. */
export interface NotificationPage {
  events: NotificationEvent[];
  next: string | undefined;
}

/** Options of `RunStore.notifications`. */
export interface NotificationsOptions {
  /** Only events of this status. */
  status?: NotificationStatus;
  /** At most this many events (1 to {@link MAX_NOTIFICATION_LIMIT}; {@link DEFAULT_NOTIFICATION_LIMIT} when left out). */
  limit?: number;
  /** The `next` of a previous page. */
  cursor?: string;
}

/** Options of `RunStore.claimNotifications`. */
export interface ClaimNotificationsOptions {
  now: Date;
  limit: number;
  /** For how long the claimed events are not handed to another claim. */
  leaseMs: number;
}

/** How a delivery went: delivered, or not (`nextAttemptAt: null` gives the event up: `failed`). */
export type NotificationOutcome =
  { delivered: true; at: Date } | { delivered: false; error: string; attempts: number; nextAttemptAt: Date | null };

/** Options of `RunStore.startNotifications`. */
export interface StartNotificationsOptions {
  now: Date;
  /** Pending events older than this many milliseconds are skipped on the store's first start. */
  catchUpMs: number;
}

/** What `RunStore.startNotifications` did: whether it was the store's first start, and how many it skipped. */
export interface StartNotificationsResult {
  first: boolean;
  skipped: number;
}

/** How many events a page of the outbox holds when no limit is given. */
export const DEFAULT_NOTIFICATION_LIMIT = 100;
/** The most events one page of the outbox holds. */
export const MAX_NOTIFICATION_LIMIT = 1000;

/** An event to write, before the store gives it an id and its delivery fields. */
export interface NewNotification {
  type: NotificationType;
  runId: string;
  key: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** A fresh event id: `msg_` and 32 random lowercase hex digits. */
export function newNotificationId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}

/**
 * Every request a run now waits for a person on, oldest first: a gate session's `waiting` list (its
 * status stays `running`), or the pending request of a run awaiting approval. The same rule as the
 * inbox's, kept here so that the stores need nothing above them.
 */
export function awaitedRequests(state: RunState): ApprovalRequest[] {
  if (state.gate === true) {
    if (state.status !== "running") return [];
    return state.waiting ?? (state.pending === undefined ? [] : [state.pending]);
  }
  return state.status === "awaiting_approval" && state.pending !== undefined ? [state.pending] : [];
}

/** The sponsor a state names, when it has one. */
function sponsorOf(state: RunState): string | undefined {
  const sponsor = (state as { sponsor?: unknown }).sponsor;
  return typeof sponsor === "string" ? sponsor : undefined;
}

function gaveUpOf(state: RunState, data: unknown, at: string): NewNotification {
  const given = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  const event: Record<string, unknown> = {
    runId: state.runId,
    skill: state.skill ?? null,
    attempts: given.attempts ?? state.attempt,
    problem: given.problem ?? state.failure?.message ?? null,
  };
  const sponsor = sponsorOf(state);
  if (sponsor !== undefined) event.sponsor = sponsor;
  return { type: "gave_up", runId: state.runId, key: "gave_up", timestamp: at, data: event };
}

/**
 * The events a save makes true, derived from the state as saved and the records saved with it: one
 * `approval_requested` per request the run now waits for (keyed by its digest), one `run_ended` when
 * the run has ended, one `gave_up` when a `gave_up` record is saved or the state says the work gave up.
 * A store writes them insert-or-ignore on `(runId, type, key)`, so saving the same truth again
 * announces nothing new. Most saves make none; this costs a few comparisons then.
 */
export function notificationEventsOf(state: RunState, records?: readonly AuditRecord[]): NewNotification[] {
  const events: NewNotification[] = [];
  for (const request of awaitedRequests(state)) {
    events.push({
      type: "approval_requested",
      runId: state.runId,
      key: request.digest,
      timestamp: state.updatedAt,
      data: { runId: state.runId, request: structuredClone(request) },
    });
  }
  if (ENDED_STATUSES.has(state.status)) {
    const data: Record<string, unknown> = { runId: state.runId, status: state.status };
    if (state.stopReason !== undefined) data.stopReason = state.stopReason;
    if (state.failure !== undefined) data.failure = { code: state.failure.code, message: state.failure.message };
    const sponsor = sponsorOf(state);
    if (sponsor !== undefined) data.sponsor = sponsor;
    events.push({ type: "run_ended", runId: state.runId, key: "end", timestamp: state.updatedAt, data });
  }
  let gaveUp = false;
  for (const record of records ?? []) {
    if (record.run !== state.runId || record.event !== "gave_up" || gaveUp) continue;
    events.push(gaveUpOf(state, record.data, record.at));
    gaveUp = true;
  }
  const noted = (state as { gaveUp?: unknown }).gaveUp;
  if (!gaveUp && typeof noted === "object" && noted !== null) {
    const at = (noted as { at?: unknown }).at;
    events.push(gaveUpOf(state, noted, typeof at === "string" ? at : state.updatedAt));
  }
  return events;
}

/** A new pending event, due at once. */
export function pendingNotification(event: NewNotification, now: Date): NotificationEvent {
  const created = now.toISOString();
  return {
    id: newNotificationId(),
    ...event,
    status: "pending",
    attempts: 0,
    nextAttemptAt: created,
    lastError: null,
    deliveredAt: null,
    createdAt: created,
  };
}

function refuse(message: string): LeashError {
  return new LeashError("invalid_option", message);
}

/** Checks the options of `notifications()`: the status, the limit, the cursor (a decimal position). */
export function checkNotificationsOptions(options: NotificationsOptions | undefined): {
  status: NotificationStatus | undefined;
  limit: number;
  cursor: number | undefined;
} {
  if (options === undefined) return { status: undefined, limit: DEFAULT_NOTIFICATION_LIMIT, cursor: undefined };
  if (typeof options !== "object" || options === null)
    throw refuse("Expected the options of notifications() to be an object.");
  for (const key of Object.keys(options))
    if (!["status", "limit", "cursor"].includes(key))
      throw refuse(`notifications() takes no option ${JSON.stringify(key)}.`);
  const { status, limit, cursor } = options;
  if (status !== undefined && !NOTIFICATION_STATUSES.includes(status))
    throw refuse(`status must be one of ${NOTIFICATION_STATUSES.join(", ")}.`);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_NOTIFICATION_LIMIT))
    throw refuse(`limit must be an integer from 1 to ${MAX_NOTIFICATION_LIMIT}.`);
  let position: number | undefined;
  if (cursor !== undefined) {
    if (typeof cursor !== "string" || !/^n[1-9][0-9]{0,15}$/.test(cursor))
      throw refuse("cursor must be the `next` of a previous page of notifications().");
    position = Number(cursor.slice(1));
    if (!Number.isSafeInteger(position))
      throw refuse("cursor must be the `next` of a previous page of notifications().");
  }
  return { status, limit: limit ?? DEFAULT_NOTIFICATION_LIMIT, cursor: position };
}

/** The cursor after an event at this position of the outbox. */
export function notificationCursor(position: number): string {
  return `n${position}`;
}

function checkDate(value: unknown, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw refuse(`${name} must be a valid Date.`);
  return value;
}

function checkCount(value: unknown, name: string, least: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least)
    throw refuse(`${name} must be an integer of at least ${least}.`);
  return value;
}

/** Checks the options of `claimNotifications()`. */
export function checkClaimOptions(options: ClaimNotificationsOptions): ClaimNotificationsOptions {
  if (typeof options !== "object" || options === null)
    throw refuse("Expected the options of claimNotifications() to be an object.");
  return {
    now: checkDate(options.now, "now"),
    limit: Math.min(checkCount(options.limit, "limit", 1), MAX_NOTIFICATION_LIMIT),
    leaseMs: checkCount(options.leaseMs, "leaseMs", 0),
  };
}

/** Checks the outcome given to `settleNotification()`. */
export function checkOutcome(id: unknown, outcome: NotificationOutcome): NotificationOutcome {
  if (typeof id !== "string" || id.length === 0) throw refuse("A notification id must be a non-empty string.");
  if (typeof outcome !== "object" || outcome === null)
    throw refuse("Expected the outcome of settleNotification() to be an object.");
  if (outcome.delivered === true) return { delivered: true, at: checkDate(outcome.at, "at") };
  if (outcome.delivered !== false) throw refuse("outcome.delivered must be true or false.");
  if (typeof outcome.error !== "string") throw refuse("outcome.error must be a string.");
  return {
    delivered: false,
    error: outcome.error,
    attempts: checkCount(outcome.attempts, "attempts", 0),
    nextAttemptAt: outcome.nextAttemptAt === null ? null : checkDate(outcome.nextAttemptAt, "nextAttemptAt"),
  };
}

/** Checks the options of `startNotifications()`. */
export function checkStartOptions(options: StartNotificationsOptions): StartNotificationsOptions {
  if (typeof options !== "object" || options === null)
    throw refuse("Expected the options of startNotifications() to be an object.");
  return { now: checkDate(options.now, "now"), catchUpMs: checkCount(options.catchUpMs, "catchUpMs", 0) };
}

/** Checks the options of `pruneNotifications()`. */
export function checkPruneOptions(options: { deliveredBefore: Date }): Date {
  if (typeof options !== "object" || options === null)
    throw refuse("Expected the options of pruneNotifications() to be an object.");
  return checkDate(options.deliveredBefore, "deliveredBefore");
}

/**
 * The outcome applied to a stored event: only a pending event changes (another deliverer may have
 * settled it first); `delivered` counts the attempt that delivered it.
 */
export function settledEvent(event: NotificationEvent, outcome: NotificationOutcome): NotificationEvent {
  if (event.status !== "pending") return event;
  if (outcome.delivered)
    return {
      ...event,
      status: "delivered",
      attempts: event.attempts + 1,
      nextAttemptAt: null,
      lastError: null,
      deliveredAt: outcome.at.toISOString(),
    };
  return {
    ...event,
    status: outcome.nextAttemptAt === null ? "failed" : "pending",
    attempts: outcome.attempts,
    lastError: outcome.error,
    nextAttemptAt: outcome.nextAttemptAt === null ? null : outcome.nextAttemptAt.toISOString(),
  };
}
