// What the tests of roles share: where a CLI store is, and a registry table as leash kept it before roles.
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { storeLocation } from "../../src/cli/common-options.js";
import type { StoreLocation } from "../../src/operate/store-location.js";
import { sql } from "../postgres/database.js";
import type { CliStore } from "../cli/cli-stores.js";

/** The location a CLI store's `--db`/`--schema` name. */
export function locationOf(target: CliStore): StoreLocation {
  const [, db, , schema] = target.args;
  return storeLocation(schema === undefined ? { db } : { db, schema });
}

/**
 * Makes the registry's table as leash kept it before roles (no `roles` column) with one person in
 * it, and returns their token.
 */
export async function oldRegistryTable(target: CliStore, name: string): Promise<string> {
  await target.store.list();
  const token = `leash_at_${randomBytes(32).toString("base64url")}`;
  const hash = createHash("sha256").update(token, "utf8").digest("hex");
  const location = locationOf(target);
  const at = new Date().toISOString();
  if (location.kind === "sqlite") {
    const database = new Database(location.db);
    try {
      database.exec(`CREATE TABLE leash_approvers (
  name TEXT PRIMARY KEY,
  token_sha256 TEXT UNIQUE NOT NULL,
  created_at TEXT NOT NULL
)`);
      database
        .prepare("INSERT INTO leash_approvers (name, token_sha256, created_at) VALUES (?, ?, ?)")
        .run(name, hash, at);
    } finally {
      database.close();
    }
  } else {
    const table = `"${location.schema}".leash_approvers`;
    await sql(
      location.db,
      `CREATE TABLE ${table} (name text PRIMARY KEY, token_sha256 text UNIQUE NOT NULL, created_at text NOT NULL)`,
    );
    await sql(location.db, `INSERT INTO ${table} (name, token_sha256, created_at) VALUES ($1, $2, $3)`, [
      name,
      hash,
      at,
    ]);
  }
  return token;
}
