import { randomBytes } from "node:crypto";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { makeRecord } from "../audit/audit-record.js";
import { LeashError, StateError, checkOptionKeys } from "../errors/index.js";
import { toJson } from "../json/index.js";
import type { JsonSchema } from "../tools/schema-validator.js";
import type { GrantInfo, GrantOptions, GrantUse, GrantsOptions, RevokeGrantOptions } from "./grant-info.js";
import { checkOrigin } from "./check-origin.js";
import { compileGrantSchema } from "./grant-schema.js";

/** The most uses one grant may give: a standing grant is a bound, not a switch that turns approval off. */
export const MAX_GRANT_USES = 1_000_000;

const GRANT_OPTIONS = ["tool", "args", "principal", "agent", "maxUses", "expiresAt", "by", "note"] as const;

/** The prefixes of the run ids whose chains belong to the store itself (its grants, its budgets). */
const RESERVED_PREFIXES = ["grant:", "budget:"] as const;

// ISO 8601 as `Date#toISOString` and most clients write it: a date, a time, an optional fraction and
// a zone (Z or an offset). Parsed by Date afterwards, so 2026-02-30 is refused as well.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Refuses a run id of a chain the store keeps for itself (`grant:<id>`, `budget:<key>`) with `invalid_option`. */
export function refuseReservedRunId(runId: unknown): void {
  if (typeof runId !== "string") return;
  const prefix = RESERVED_PREFIXES.find((reserved) => runId.startsWith(reserved));
  if (prefix === undefined) return;
  throw new LeashError(
    "invalid_option",
    `Expected \`runId\` not to begin with \`${prefix}\`: those chains belong to the store (its standing grants and budgets).`,
    { details: { runId } },
  );
}

function text(value: unknown, option: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value.trim() === "" || value.length > 1000) {
    throw new LeashError(
      "invalid_option",
      `Expected \`${option}\` to be a non-empty string of at most 1000 characters.`,
    );
  }
  return value;
}

/** An ISO 8601 time, checked and written back in the form `Date#toISOString` gives. */
export function checkIsoTime(value: unknown, option: string): string {
  const time = typeof value === "string" && ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  // Date.parse rolls a day past the month's end over into the next month: the written day must exist.
  const [year, month, day] = typeof value === "string" ? value.slice(0, 10).split("-").map(Number) : [];
  const real = year !== undefined && new Date(Date.UTC(year, month! - 1, day)).getUTCDate() === day;
  if (!Number.isFinite(time) || !real) {
    throw new LeashError(
      "invalid_option",
      `Expected \`${option}\` to be an ISO 8601 time, e.g. 2026-12-02T00:00:00.000Z.`,
    );
  }
  return new Date(time).toISOString();
}

/**
 * Checks what `store.grant` was given, before anything is stored: `tool` and `by` non-empty,
 * `maxUses` an integer from 1 to {@link MAX_GRANT_USES}, `expiresAt` ISO 8601, `args` a JSON Schema
 * that compiles (the validator the tools use), and no key it does not know. Returns the grant the
 * store keeps, with a fresh id, no uses and `givenAt` now.
 */
export function newGrant(options: unknown, now: Date): GrantInfo {
  checkOptionKeys(options, GRANT_OPTIONS, "store.grant(options)");
  if (options === undefined) throw new LeashError("invalid_option", "Expected `store.grant(options)` to be an object.");
  const given = options as Partial<Record<keyof GrantOptions, unknown>>;
  const tool = text(given.tool, "tool", true)!;
  const by = text(given.by, "by", true)!;
  const maxUses = given.maxUses;
  if (typeof maxUses !== "number" || !Number.isInteger(maxUses) || maxUses < 1 || maxUses > MAX_GRANT_USES) {
    throw new LeashError("invalid_option", `Expected \`maxUses\` to be an integer from 1 to ${MAX_GRANT_USES}.`);
  }
  const grant: GrantInfo = {
    id: randomBytes(16).toString("hex"),
    tool,
    maxUses,
    uses: 0,
    by,
    givenAt: now.toISOString(),
  };
  if (given.args !== undefined) {
    const schema = toJson(given.args, "`args`") as JsonSchema;
    // Compiled now so that a schema that cannot check anything is refused before it is stored.
    compileGrantSchema(schema, "`args`, the schema of a grant's arguments");
    grant.args = schema;
  }
  const principal = text(given.principal, "principal", false);
  if (principal !== undefined) grant.principal = principal;
  const agent = text(given.agent, "agent", false);
  if (agent !== undefined) grant.agent = agent;
  if (given.expiresAt !== undefined) grant.expiresAt = checkIsoTime(given.expiresAt, "expiresAt");
  const note = text(given.note, "note", false);
  if (note !== undefined) grant.note = note;
  return grant;
}

/** Checks the second argument of `store.grant`: `{ origin? }`, the origin as `store.answer` takes it. */
export function checkGiveOptions(options: unknown): AnswerOrigin | undefined {
  checkOptionKeys(options, ["origin"], "store.grant(options, { origin })");
  return checkOrigin((options as { origin?: unknown } | undefined)?.origin);
}

/** Checks what `store.revokeGrant(id, options)` was given; returns the revocation to record. */
export function checkRevoke(id: unknown, options: unknown, now: Date): NonNullable<GrantInfo["revoked"]> {
  if (typeof id !== "string" || id === "")
    throw new LeashError("invalid_option", "Expected the grant's `id` to be a non-empty string.");
  checkOptionKeys(options, ["by", "note"], "store.revokeGrant(id, options)");
  if (options === undefined) throw new LeashError("invalid_option", "Expected `store.revokeGrant(id, { by })`.");
  const given = options as Partial<Record<keyof RevokeGrantOptions, unknown>>;
  const revoked: NonNullable<GrantInfo["revoked"]> = { by: text(given.by, "by", true)!, at: now.toISOString() };
  const note = text(given.note, "note", false);
  if (note !== undefined) revoked.note = note;
  return revoked;
}

/** Checks what `store.grants(options)` was given. */
export function checkGrantsOptions(options: unknown): GrantsOptions {
  checkOptionKeys(options, ["active"], "store.grants(options)");
  const active = (options as GrantsOptions | undefined)?.active;
  if (active !== undefined && typeof active !== "boolean") {
    throw new LeashError("invalid_option", "Expected `active` to be a boolean.");
  }
  return active === undefined ? {} : { active };
}

/** Whether a grant can still approve a call at `now`: not revoked, not expired, uses left. */
export function isActiveGrant(grant: GrantInfo, now: Date): boolean {
  if (grant.revoked !== undefined || grant.uses >= grant.maxUses) return false;
  return grant.expiresAt === undefined || Date.parse(grant.expiresAt) > now.getTime();
}

/** The grants a listing gives for `options`, oldest first (the order they are given in). */
export function filterGrants(grants: readonly GrantInfo[], options: GrantsOptions, now: Date): GrantInfo[] {
  if (options.active === undefined) return [...grants];
  return grants.filter((grant) => isActiveGrant(grant, now) === options.active);
}

/** The run id of a grant's own chain in the store's trail. */
export function grantRunId(id: string): string {
  return `grant:${id}`;
}

/** The `grant_given` record: the whole grant as given, and its origin when it came through a channel. */
export function grantGivenRecord(grant: GrantInfo, origin: AnswerOrigin | undefined): AuditRecord {
  const data: Record<string, unknown> = { ...grant };
  if (origin !== undefined) data.origin = origin;
  return makeRecord(grantRunId(grant.id), null, "grant_given", data, grant.givenAt);
}

/** The `grant_revoked` record, continuing the grant's chain at `head`. */
export function grantRevokedRecord(grant: GrantInfo, head: AuditHead): AuditRecord {
  const revoked = grant.revoked!;
  return makeRecord(grantRunId(grant.id), head, "grant_revoked", { grant: grant.id, ...revoked }, revoked.at);
}

/** The refusal of an unknown grant id. */
export function grantNotFound(id: string): LeashError {
  return new LeashError("grant_not_found", `No standing grant \`${id}\` in the store.`, { details: { grant: id } });
}

/** Why a stored grant refuses a use, or `undefined` when it takes it; the check every store makes. */
export function useRefusal(grant: GrantInfo | undefined, pin: string | null, use: GrantUse): string | undefined {
  if (grant === undefined) return "not_found";
  if (grant.revoked !== undefined) return "revoked";
  if (grant.uses >= grant.maxUses) return "used_up";
  if (grant.uses !== use.use - 1) return "moved";
  if (pin !== null && pin !== use.toolDigest) return "redefined";
  return undefined;
}

/** The refusal of a use a grant did not give (see {@link useRefusal}): `stale_state`, the grant and the reason in its details. */
export function useRefused(use: GrantUse, reason: string): StateError {
  return new StateError("stale_state", `Standing grant \`${use.grant}\` did not give use ${use.use}: ${reason}.`, {
    details: { grant: use.grant, reason },
  });
}

/**
 * The uses a save carries, checked to name each grant once (two uses of one grant in one save would
 * be checked against the same stored count): none when there are none. @internal
 */
export function distinctUses(uses: readonly GrantUse[] | undefined): readonly GrantUse[] {
  if (uses === undefined || uses.length === 0) return [];
  const grants = new Set(uses.map((use) => use.grant));
  if (grants.size !== uses.length)
    throw new LeashError("internal_error", "A save may carry at most one use of each standing grant.");
  return uses;
}
