import { LeashError } from "../errors/leash-error.js";
import type { GrantInfo } from "../stores/grant-info.js";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest `--for` a grant takes: a year. A standing grant is for a job, not for ever. */
const MAX_FOR_MS = 366 * UNIT_MS.d;

/**
 * The expiry of a grant given "for" a while: `30m`, `2h`, `7d` (a whole number of minutes, hours or
 * days, at most a year) after `now`, as ISO 8601. Anything else is `invalid_option` naming `option`.
 */
export function expiryAfter(duration: string, now: Date, option = "--for"): string {
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(duration.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!Number.isFinite(ms) || ms > MAX_FOR_MS) {
    throw new LeashError(
      "invalid_option",
      `Expected \`${option}\` to be a whole number of minutes, hours or days, e.g. 30m, 2h or 7d (at most a year).`,
    );
  }
  return new Date(now.getTime() + ms).toISOString();
}

/** How many calls a grant still approves. */
export function usesLeft(grant: GrantInfo): number {
  return Math.max(0, grant.maxUses - grant.uses);
}

/** A grant's state in a word: `active`, `revoked`, `expired` or `used up`, by the clock `now`. */
export function grantStatus(grant: GrantInfo, now: Date): "active" | "revoked" | "expired" | "used up" {
  if (grant.revoked !== undefined) return "revoked";
  if (grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now.getTime()) return "expired";
  return usesLeft(grant) === 0 ? "used up" : "active";
}

/** The grants active first (each group oldest first), as a person reviewing them wants them. */
export function activeFirst(grants: readonly GrantInfo[], now: Date): GrantInfo[] {
  const active = grants.filter((grant) => grantStatus(grant, now) === "active");
  return [...active, ...grants.filter((grant) => grantStatus(grant, now) !== "active")];
}
