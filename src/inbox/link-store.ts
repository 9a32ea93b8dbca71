import { createHash, randomBytes } from "node:crypto";
import { LeashError } from "../errors/leash-error.js";
import type { StoreLocation } from "../operate/store-location.js";

/** What every link token begins with, so that a leaked one is recognised (by a person or a secret scanner). */
const LINK_TOKEN_PREFIX = "leash_lk_";

/** 32 random bytes in base64url: 43 characters, no padding. */
const TOKEN_SHAPE = /^leash_lk_[A-Za-z0-9_-]{43}$/;

/** A one-time approval link as its store keeps it: never its token, only the token's hash. */
export interface LinkInfo {
  /** A short random id, recorded in the origin of the answer given through the link. */
  id: string;
  /** The person of the approver registry the link answers as. */
  name: string;
  runId: string;
  /** The digest of the request the link answers; any other request of the run is not its. */
  digest: string;
  /** The step of that request. */
  step: number;
  /** When it was made (ISO 8601). */
  createdAt: string;
  /** When it stops working (ISO 8601). */
  expiresAt: string;
  /** When it was spent (ISO 8601): a link answers once. */
  usedAt?: string;
}

/** A link to make: who answers, which request, until when. */
export interface NewLink {
  name: string;
  runId: string;
  digest: string;
  step: number;
  /** ISO 8601; a time already past makes a link that never works. */
  expiresAt: string;
}

/**
 * The one-time approval links of a store location, kept beside the approver registry: the SHA-256
 * of each token only, so that a copy of the database answers nothing. A link belongs to a person of
 * the registry; removing them deletes their links, and a link whose person is gone is never found.
 */
export interface LinkStore {
  /** Makes a link for a person of the registry (`role_refused` when there is no such person) and returns its token, once. */
  create(link: NewLink): Promise<{ token: string; link: LinkInfo }>;
  /** The link a token belongs to, spent or expired ones included, or undefined (looked up by the token's SHA-256). */
  find(token: string): Promise<LinkInfo | undefined>;
  /**
   * Spends a link: a compare-and-set that succeeds only while it is unspent, unexpired at `now` and
   * its person is in the registry. The link as spent, or undefined when another spent it first (or it
   * cannot be spent).
   */
  spend(token: string, now: Date): Promise<LinkInfo | undefined>;
  close(): Promise<void>;
}

/** Options of {@link openLinkStore}. */
export interface LinkStoreOptions {
  /** The clock that dates a new link's `createdAt`; `() => new Date()` by default. */
  now?: () => Date;
}

/** A new link token: the prefix and 32 bytes of `crypto.randomBytes` in base64url. */
export function newLinkToken(): string {
  return `${LINK_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** A link's id: 12 hex digits (48 random bits), short enough to read in an answer's origin. */
export function newLinkId(): string {
  return randomBytes(6).toString("hex");
}

/** Whether a value has the shape of a link token; one that does not is never looked up. */
export function isLinkTokenShape(value: unknown): value is string {
  return typeof value === "string" && TOKEN_SHAPE.test(value);
}

/** The SHA-256 of a link token, in lowercase hex: the only form of it a store keeps. */
export function linkTokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The refusal of a link for a name that is no person of the registry. */
export function notAPerson(name: string): LeashError {
  return new LeashError(
    "role_refused",
    `${name} is not a person of leash approvers, so no link can answer as them; add them with leash approvers add.`,
  );
}

/** A stored row, as both stores read it, as a {@link LinkInfo}. */
export function linkOfRow(row: Record<string, unknown>): LinkInfo {
  const usedAt = row.used_at;
  return {
    id: String(row.id),
    name: String(row.name),
    runId: String(row.run_id),
    digest: String(row.digest),
    step: Number(row.step),
    createdAt: String(row.created_at),
    expiresAt: String(row.expires_at),
    ...(typeof usedAt === "string" ? { usedAt } : {}),
  };
}

/**
 * The links kept beside the runs of a store location (the SQLite file, or the PostgreSQL schema),
 * which must hold a leash store already; only `create` creates the links' table.
 *
 * @example
 * const links = await openLinkStore(storeLocation({ db: "runs.db" }));
 * const { token } = await links.create({ name: "noor", runId, digest, step, expiresAt });
 * await links.close();
 */
export async function openLinkStore(location: StoreLocation, options: LinkStoreOptions = {}): Promise<LinkStore> {
  const now = options.now ?? (() => new Date());
  if (location.kind === "sqlite") {
    const { openSqliteLinks } = await import("./sqlite-links.js");
    return openSqliteLinks(location.db, now);
  }
  // Loaded only here, so that a SQLite user needs no `pg`.
  const { openPostgresLinks } = await import("./postgres-links.js");
  return openPostgresLinks(location, now);
}
