// Checks a leash webhook as Standard Webhooks specifies, with node:crypto only: what any receiver
// does before it trusts an event (a Standard Webhooks library, in any language, does the same).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** How far a webhook-timestamp may be from this machine's clock: older events are replays. */
const TOLERANCE_SECONDS = 5 * 60;

export function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return typeof value === "string" ? value : "";
}

/**
 * Whether a request is an event signed with one of `secrets` (`whsec_...`, several while one is
 * rotated) within the tolerance: HMAC-SHA256 over `id.timestamp.body`, compared in constant time
 * with each `v1,` signature of the header.
 */
export function verifyWebhook(secrets: readonly string[], headers: IncomingHttpHeaders, body: string): boolean {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  if (id === "" || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const given = header(headers, "webhook-signature")
    .split(" ")
    .filter((part) => part.startsWith("v1,"))
    .map((part) => Buffer.from(part.slice(3), "base64"));
  return secrets.some((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
    return given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
}
