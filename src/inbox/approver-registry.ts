import type { StoreLocation } from "../operate/store-location.js";
import type { Role } from "./approver-roles.js";

export { ROLES } from "./approver-roles.js";
export type { Role } from "./approver-roles.js";

/** An approver as a registry lists them: never their token, nor its hash. */
export interface ApproverEntry {
  name: string;
  /** When they were added (ISO 8601). */
  createdAt: string;
  /** What they may do in the inbox (see {@link Role}); `["approver"]` for a person kept before roles. */
  roles: Role[];
}

/** A signed-in person: their name and roles, read in one lookup of their token. */
export interface ApproverIdentity {
  name: string;
  roles: Role[];
}

/** The options of {@link ApproverRegistry.add}. */
export interface AddApproverOptions {
  /** Their roles; default `["approver"]`. An empty list or an unknown role is `invalid_option`. */
  roles?: readonly Role[];
}

/**
 * The people who may sign in to the inbox, each with a token of their own. Only the SHA-256 of a
 * token is kept, so a copy of the database signs nobody in.
 */
export interface ApproverRegistry {
  /**
   * A new person, their roles and their token (printed once). `approver_exists` when the name is
   * taken; an empty or unknown role (`invalid_option`) adds nobody.
   */
  add(name: string, options?: AddApproverOptions): Promise<{ name: string; token: string; roles: Role[] }>;
  /**
   * Replaces a person's roles, at once for every session of theirs, and returns them as kept.
   * `approver_not_found` when there is no such person; an empty or unknown role (`invalid_option`)
   * changes nothing.
   */
  setRoles(name: string, roles: readonly Role[]): Promise<Role[]>;
  /** A person's roles, or undefined when there is no such person. */
  rolesOf(name: string): Promise<Role[] | undefined>;
  /** The approvers, oldest first. */
  list(): Promise<ApproverEntry[]>;
  /** true when there was such an approver; their token stops working at once. */
  remove(name: string): Promise<boolean>;
  /** The approver a token belongs to, or undefined (looked up by the token's SHA-256; never logs it). */
  nameOf(token: string): Promise<string | undefined>;
  /** The person a token belongs to, with their roles, in one lookup; undefined as for {@link nameOf}. */
  whoIs(token: string): Promise<ApproverIdentity | undefined>;
  close(): Promise<void>;
}

/**
 * The registry kept beside the runs of a store location (the SQLite file, or the PostgreSQL schema).
 * The location must hold a leash store already (else `db_not_found` or `not_a_database`, as the other
 * commands say); only `add` creates the registry's table (and `add` or `setRoles` its `roles` column,
 * in a table kept before roles), so reading never writes to a database.
 *
 * @example
 * const registry = await openApproverRegistry(storeLocation({ db: "runs.db" }));
 * const { token } = await registry.add("noor", { roles: ["approver", "spender"] });
 * (await registry.whoIs(token))?.roles; // ["approver", "spender"]
 * await registry.close();
 */
export async function openApproverRegistry(location: StoreLocation): Promise<ApproverRegistry> {
  if (location.kind === "sqlite") {
    const { openSqliteApprovers } = await import("./sqlite-approvers.js");
    return openSqliteApprovers(location.db);
  }
  // Loaded only here, so that a SQLite user needs no `pg`.
  const { openPostgresApprovers } = await import("./postgres-approvers.js");
  return openPostgresApprovers(location);
}
