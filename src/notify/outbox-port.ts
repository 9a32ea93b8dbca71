// The store's outbox, as the deliverer reads it. Stand-in until the store port lands; replaced by the
// port's own types then.
export type NotificationType = "approval_requested" | "run_ended" | "gave_up";
export type NotificationStatus = "pending" | "delivered" | "failed" | "skipped";
export interface NotificationEvent {
  id: string;
  type: NotificationType;
  runId: string;
  key: string;
  timestamp: string;
  data: Record<string, unknown>;
  status: NotificationStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}
export interface NotificationPage {
  events: NotificationEvent[];
  next: string | undefined;
}
export type NotificationOutcome =
  { delivered: true; at: Date } | { delivered: false; error: string; attempts: number; nextAttemptAt: Date | null };
export interface OutboxStore {
  notifications?(o?: { status?: NotificationStatus; limit?: number; cursor?: string }): Promise<NotificationPage>;
  claimNotifications?(o: { now: Date; limit: number; leaseMs: number }): Promise<NotificationEvent[]>;
  settleNotification?(id: string, outcome: NotificationOutcome): Promise<void>;
  startNotifications?(o: { now: Date; catchUpMs: number }): Promise<{ first: boolean; skipped: number }>;
  pruneNotifications?(o: { deliveredBefore: Date }): Promise<number>;
}
