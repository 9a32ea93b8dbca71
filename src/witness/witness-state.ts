import Database from "better-sqlite3";
import { LeashError } from "../errors/index.js";

/** The latest checkpoint a witness cosigned for one log. */
export interface WitnessedCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** The checkpoint as served to monitors: its text, the log signatures verified and the cosignature. */
  note: string;
}

/** What a decision over the latest checkpoint returns: the answer, and the checkpoint to store, if any. */
export interface WitnessDecision<T> {
  result: T;
  store?: WitnessedCheckpoint;
}

/** The version of the witness's tables, kept in SQLite's `user_version`. */
const SCHEMA_VERSION = 1;

/**
 * A witness's durable memory: the latest cosigned checkpoint of each log, in a SQLite file (or in
 * memory, which a restart forgets). Each {@link WitnessState.decide} reads and writes in one
 * `BEGIN IMMEDIATE` transaction committed before the witness answers, so two submissions from the same
 * old size, even from two processes on one file, cannot both advance it (the spec's roll-back race).
 *
 * @example
 * const state = WitnessState.open("witness.db");
 * const latest = state.latest("example.com/leash");
 */
export class WitnessState {
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Opens (creating it if needed) the witness's state in the SQLite file `path`; absent, in memory. */
  static open(path?: string): WitnessState {
    const db = new Database(path ?? ":memory:");
    try {
      db.pragma("busy_timeout = 10000");
      // FULL: a cosignature is answered only once its state is on disk, even across a power cut.
      db.pragma("synchronous = FULL");
      const version = db.pragma("user_version", { simple: true }) as number;
      if (version !== 0 && version !== SCHEMA_VERSION) {
        throw new LeashError(
          "unsupported_version",
          `The witness database is of version ${version}; this copy knows version ${SCHEMA_VERSION}.`,
        );
      }
      db.exec(
        `CREATE TABLE IF NOT EXISTS witness_checkpoints (
           origin TEXT PRIMARY KEY,
           size INTEGER NOT NULL,
           root BLOB NOT NULL,
           note TEXT NOT NULL,
           updated_at INTEGER NOT NULL
         ) STRICT`,
      );
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    } catch (error) {
      db.close();
      throw storeError(error);
    }
    return new WitnessState(db);
  }

  /** The latest checkpoint cosigned for `origin`, or undefined when none was. */
  latest(origin: string): WitnessedCheckpoint | undefined {
    const row = this.#db
      .prepare("SELECT origin, size, root, note FROM witness_checkpoints WHERE origin = ?")
      .get(origin) as { origin: string; size: number; root: Buffer; note: string } | undefined;
    return row === undefined ? undefined : { ...row, root: new Uint8Array(row.root) };
  }

  /**
   * Runs `decide` on the latest checkpoint of `origin` and stores what it asks to, in one immediate
   * transaction: the check of the old size and the write are one atomic step.
   */
  decide<T>(origin: string, decide: (latest: WitnessedCheckpoint | undefined) => WitnessDecision<T>): T {
    const write = this.#db.prepare(
      `INSERT INTO witness_checkpoints (origin, size, root, note, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (origin) DO UPDATE SET size = excluded.size, root = excluded.root, note = excluded.note,
       updated_at = excluded.updated_at`,
    );
    const step = this.#db.transaction(() => {
      const { result, store } = decide(this.latest(origin));
      if (store !== undefined) {
        write.run(store.origin, store.size, Buffer.from(store.root), store.note, Date.now());
      }
      return result;
    });
    try {
      return step.immediate();
    } catch (error) {
      throw storeError(error);
    }
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }
}

function storeError(error: unknown): unknown {
  if (error instanceof LeashError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
    return new LeashError("store_busy", "The witness database stayed locked by another process.", { cause: error });
  }
  return new LeashError("store_failed", `The witness database failed: ${(error as Error).message}`, { cause: error });
}
