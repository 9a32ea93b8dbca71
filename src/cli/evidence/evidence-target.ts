import { statSync } from "node:fs";
import { CliError } from "../cli-error.js";
import { storeLocation, type CommonOptions } from "../common-options.js";
import type { StoreLocation } from "../../operate/store-location.js";
import { isSqliteFile } from "../../operate/open-store.js";

/** What an evidence command works on: a JSONL trail, or a store (a SQLite file or a PostgreSQL schema). */
export type EvidenceTarget =
  { kind: "jsonl"; path: string; label: string } | { kind: "store"; location: StoreLocation };

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where an evidence command looks, as `leash verify` tells it: a positional PATH or `--db` (not both),
 * else `LEASH_DB`, else `./leash.db`. A `postgres://` URL and a file with the SQLite header are stores;
 * any other file is a JSONL trail; a path where no file is is `trail_not_found`.
 */
export function evidenceTarget(path: string | undefined, options: CommonOptions): EvidenceTarget {
  if (path !== undefined && options.db !== undefined)
    throw new CliError("invalid_option", "Give either a PATH or --db, not both.");
  const location = storeLocation(path === undefined ? options : { ...options, db: path });
  if (location.kind === "postgres") return { kind: "store", location };
  if (!isFile(location.db))
    throw new CliError("trail_not_found", `There is no trail or database at ${location.label}.`);
  if (isSqliteFile(location.db)) return { kind: "store", location };
  return { kind: "jsonl", path: location.db, label: location.db };
}
