import type { WebhookSecrets } from "./webhook-secret.js";

/** The headers of one delivery attempt, as Standard Webhooks names them. */
export interface WebhookHeaders {
  "content-type": "application/json";
  /** The event's id: the same on every attempt, so a receiver drops what it has seen. */
  "webhook-id": string;
  /** When this attempt was signed, in whole seconds since the Unix epoch. */
  "webhook-timestamp": string;
  /** `v1,<base64>` per secret, space-separated. */
  "webhook-signature": string;
}

/**
 * Signs one attempt to deliver an event: each attempt anew, with its own timestamp, so that a
 * receiver that refuses old timestamps (replays) still takes a retry sent hours later.
 *
 * @example
 * const headers = signWebhook(secrets, { id: "msg_1f2e", at: new Date(), body });
 */
export function signWebhook(secrets: WebhookSecrets, attempt: { id: string; at: Date; body: string }): WebhookHeaders {
  const timestamp = Math.floor(attempt.at.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": attempt.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.signature(attempt.id, timestamp, attempt.body),
  };
}
