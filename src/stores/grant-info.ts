import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { JsonSchema } from "../tools/schema-validator.js";

/**
 * A standing grant as the store keeps it: a giver's approval, ahead of time, of up to `maxUses` calls
 * of one tool whose arguments satisfy `args`, for the runs it names, until `expiresAt` or a revoke.
 */
export interface GrantInfo {
  /** Random and unguessable; the grant's trail is the chain of run id `grant:<id>`. */
  id: string;
  /** The leash tool the grant approves calls of. */
  tool: string;
  /** A JSON Schema (2020-12, or draft-07 by `$schema`) the call's arguments must satisfy. */
  args?: JsonSchema;
  /** Only runs working as this principal. */
  principal?: string;
  /** Only runs of the agent of this name. */
  agent?: string;
  /** How many calls the grant approves in all. */
  maxUses: number;
  /** How many it has approved so far; a use is never given back. */
  uses: number;
  /** ISO 8601: after it the grant approves nothing. */
  expiresAt?: string;
  /** Who gave it: the approver every use records. */
  by: string;
  note?: string;
  /** When the store took it, ISO 8601. */
  givenAt: string;
  /** Who revoked it, when, and why; a revoked grant approves nothing. */
  revoked?: { by: string; at: string; note?: string };
}

/** What `store.grant(options)` takes: the fields of {@link GrantInfo} a giver chooses. */
export interface GrantOptions {
  tool: string;
  args?: JsonSchema;
  principal?: string;
  agent?: string;
  maxUses: number;
  expiresAt?: string;
  by: string;
  note?: string;
}

/** The second argument of `store.grant`: where the grant came from, as `store.answer` takes it. */
export interface GiveGrantOptions {
  origin?: AnswerOrigin;
}

/** What `store.revokeGrant(id, options)` takes. */
export interface RevokeGrantOptions {
  by: string;
  note?: string;
}

/** What `store.grants(options)` takes: `active: true` only the grants that can still approve, `false` only those that cannot. */
export interface GrantsOptions {
  active?: boolean;
}

/**
 * One use of a standing grant, taken by compare-and-set: the store refuses it (`stale_state`, with
 * `details.grant` and `details.reason`) unless the grant is not revoked, has `use - 1` uses, and has
 * approved no other declaration of the tool (`toolDigest`, pinned at its first use). @internal
 */
export interface GrantUse {
  grant: string;
  /** The number of this use, from 1: the grant's uses once it is taken. */
  use: number;
  /** The digest of the tool's name, effect, scopes and definition, as the call sees them. */
  toolDigest: string;
}
