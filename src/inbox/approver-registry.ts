import type { StoreLocation } from "../operate/store-location.js";
import type { Role } from "./role-allows.js";

/** An approver as a registry lists them: never their token, nor its hash. */
export interface ApproverEntry {
  name: string;
  /** When they were added (ISO 8601). */
  createdAt: string;
}

/**
 * The people who may sign in to the inbox, each with a token of their own. Only the SHA-256 of a
 * token is kept, so a copy of the database signs nobody in.
 */
export interface ApproverRegistry {
  /** A new approver and their token (printed once). `approver_exists` when the name is taken. */
  add(name: string): Promise<{ name: string; token: string }>;
  /** The approvers, oldest first. */
  list(): Promise<ApproverEntry[]>;
  /** true when there was such an approver; their token stops working at once. */
  remove(name: string): Promise<boolean>;
  /** The approver a token belongs to, or undefined (looked up by the token's SHA-256; never logs it). */
  nameOf(token: string): Promise<string | undefined>;
  /** The roles of a person of the registry, or undefined when there is no such person. */
  rolesOf(name: string): Promise<Role[] | undefined>;
  close(): Promise<void>;
}

/**
 * The registry kept beside the runs of a store location (the SQLite file, or the PostgreSQL schema).
 * The location must hold a leash store already (else `db_not_found` or `not_a_database`, as the other
 * commands say); only `add` creates the registry's table, so reading never writes to a database.
 *
 * @example
 * const registry = await openApproverRegistry(storeLocation({ db: "runs.db" }));
 * const { token } = await registry.add("noor");
 * (await registry.nameOf(token)) === "noor";
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
