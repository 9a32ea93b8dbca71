import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { AuditSink, RunStore } from "leash";
import { SqliteStore } from "leash/sqlite";
import { PostgresStore } from "leash/postgres";

/** The kinds of store the store benchmarks compare: none (the agent's memory sink), SQLite, PostgreSQL. */
export type BenchStoreKind = "none" | "sqlite" | "postgres";

/** A store opened for one measurement, and how to close and remove it. */
export interface BenchStore {
  kind: BenchStoreKind;
  /** Undefined for `none`. */
  store: (RunStore & AuditSink) | undefined;
  /** Where it is, for the command line: `--db FILE` or `--db URL --schema NAME`. */
  args: string[];
  /** Closes the store and removes its file or schema. */
  remove(): Promise<void>;
}

/** The PostgreSQL database the benchmarks use (DATABASE_URL), or undefined when it is not set. */
export function databaseUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === "" ? undefined : url;
}

/** Runs one SQL statement on a connection of its own. */
export async function runSql(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh schema name of the benchmark's own. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/**
 * A fresh, empty store of a kind: a SQLite file in a new temporary folder (on the disk, so every
 * commit waits for fsync as in production) or a new schema in DATABASE_URL. The store is used once
 * before it is returned (the tables are created on first use), so no measurement pays for that.
 */
export async function openFreshStore(kind: BenchStoreKind, prefix: string): Promise<BenchStore> {
  if (kind === "none") return { kind, store: undefined, args: [], remove: () => Promise.resolve() };
  if (kind === "sqlite") {
    const folder = mkdtempSync(join(tmpdir(), `${prefix}-`));
    const file = join(folder, "runs.db");
    const store = new SqliteStore(file);
    await store.list();
    return {
      kind,
      store,
      args: ["--db", file],
      remove: async () => {
        await store.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
  const url = databaseUrl();
  if (url === undefined) throw new Error("DATABASE_URL is not set.");
  const schema = freshSchema(prefix.replaceAll("-", "_"));
  const store = new PostgresStore({ connectionString: url, schema });
  await store.list();
  return {
    kind,
    store,
    args: ["--db", url, "--schema", schema],
    remove: async () => {
      await store.close();
      await runSql(url, `DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    },
  };
}

/** Settles with `promise`, or rejects after `ms` milliseconds, whichever comes first. */
export function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The code and message of a thrown value, as a table cell: `store_failed: timeout exceeded ...`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${typeof code === "string" ? `${code}: ` : ""}${error.message}`;
  }
  return String(error);
}

/** The median of a list of numbers, leaving out those not measured (NaN); NaN when none is left. */
export function medianOf(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
