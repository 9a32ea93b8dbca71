import type { Database, Statement } from "better-sqlite3";
import { LeashError } from "../../errors/index.js";
import type { GrantInfo, GrantUse } from "../grant-info.js";
import { useRefusal, useRefused } from "../grant-options.js";

interface GrantRow {
  info: string;
  uses: number;
  tool_digest: string | null;
}

/** A stored grant's row read back: its JSON parsed, its uses from their column. */
function grantOf(row: GrantRow): GrantInfo {
  let info: unknown;
  try {
    info = JSON.parse(row.info);
  } catch (error) {
    throw new LeashError("store_failed", "A stored standing grant is not JSON.", { cause: error });
  }
  if (typeof info !== "object" || info === null || typeof (info as GrantInfo).id !== "string")
    throw new LeashError("store_failed", "A stored standing grant is not a grant.");
  return { ...(info as GrantInfo), uses: row.uses };
}

/**
 * The grants table of a {@link SqliteStore}: statements that run inside the caller's (immediate)
 * transaction, so that a grant and its record, or a use and the run's save, commit together.
 */
export class SqliteGrants {
  readonly #insert: Statement<[string, string, number]>;
  readonly #update: Statement<[string, string]>;
  readonly #use: Statement<[number, string, string]>;
  readonly #one: Statement<[string], GrantRow>;
  readonly #all: Statement<[], GrantRow>;

  constructor(database: Database) {
    this.#insert = database.prepare("INSERT INTO leash_grants (id, info, uses) VALUES (?, ?, ?)");
    this.#update = database.prepare("UPDATE leash_grants SET info = ? WHERE id = ?");
    this.#use = database.prepare(
      "UPDATE leash_grants SET uses = ?, tool_digest = COALESCE(tool_digest, ?) WHERE id = ?",
    );
    this.#one = database.prepare("SELECT info, uses, tool_digest FROM leash_grants WHERE id = ?");
    this.#all = database.prepare("SELECT info, uses, tool_digest FROM leash_grants ORDER BY position");
  }

  /** Stores a new grant. */
  insert(grant: GrantInfo): void {
    const { uses, ...info } = grant;
    this.#insert.run(grant.id, JSON.stringify(info), uses);
  }

  /** The stored grant of an id, or `undefined`. */
  get(id: string): GrantInfo | undefined {
    const row = this.#one.get(id);
    return row === undefined ? undefined : grantOf(row);
  }

  /** Writes a grant's `revoked`. */
  revoke(grant: GrantInfo): void {
    const { uses: _uses, ...info } = grant;
    this.#update.run(JSON.stringify(info), grant.id);
  }

  /** Every stored grant, oldest first. */
  list(): GrantInfo[] {
    return this.#all.all().map(grantOf);
  }

  /** Takes one use by compare-and-set, or throws its refusal (`stale_state`) and writes nothing. */
  take(use: GrantUse): void {
    const row = this.#one.get(use.grant);
    const reason = useRefusal(row === undefined ? undefined : grantOf(row), row?.tool_digest ?? null, use);
    if (reason !== undefined) throw useRefused(use, reason);
    this.#use.run(use.use, use.toolDigest, use.grant);
  }
}
