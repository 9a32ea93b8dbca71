import type { Database, Transaction } from "better-sqlite3";
import type { LeashError } from "../../errors/index.js";
import { toLeashError } from "./sqlite-errors.js";
import type { SqliteOperation } from "./sqlite-errors.js";

/**
 * The most writes one transaction takes. A batch holds the file's write lock and the thread while it
 * runs (about 0.1 ms a save), so a cap keeps one batch from stalling the process; what is left waits
 * for the next turn of the event loop.
 */
export const MAX_BATCH_WRITES = 256;

/** One write waiting for its batch. */
export interface QueuedWrite {
  /** What the write is, for the error of a failure. */
  operation: Omit<SqliteOperation, "path">;
  /** Runs the write's statements, inside its own savepoint of the batch's transaction. */
  apply: () => void;
  /** Called once the batch's COMMIT has returned, for a write that applied, before its promise resolves. */
  committed: () => void;
}

/** What the store does around each batch. */
export interface BatchHooks {
  /** Before the transaction begins (the store checkpoints there when due). */
  before: (writes: readonly QueuedWrite[]) => void;
  /** Inside the transaction, before the first write. */
  begin: () => void;
  /** Inside the transaction, after the last write, before COMMIT. */
  end: () => void;
  /** After a transaction that failed, nothing of it written. */
  failed: () => void;
}

interface Entry extends QueuedWrite {
  resolve: () => void;
  reject: (error: LeashError) => void;
}

/**
 * Group commit for one connection: the writes asked for in one turn of the event loop (the saves of
 * every run whose model call or tool returned meanwhile) commit in one `BEGIN IMMEDIATE` transaction,
 * one fsync for all of them instead of one each. Each write is its own savepoint: a write that fails
 * (a lost compare-and-set, a taken run id, a broken chain) rolls back alone, and the others commit.
 * Every promise settles only after the COMMIT has returned, with its own write's outcome: a write
 * that resolved is durable (`synchronous=FULL`), so a tool's intent is on disk before the call
 * starts. A failure of the transaction itself (the lock not obtained within the busy timeout, a disk
 * error, a failed COMMIT) fails every write of the batch that had not failed on its own, and then
 * none of them was written.
 */
export class SqliteGroupCommit {
  readonly #path: string;
  readonly #hooks: BatchHooks;
  readonly #batch: Transaction<(entries: readonly Entry[], failures: (LeashError | null)[]) => void>;
  readonly #savepoint: Transaction<(entry: Entry) => void>;
  #queue: Entry[] = [];
  #scheduled = false;

  constructor(database: Database, path: string, hooks: BatchHooks) {
    this.#path = path;
    this.#hooks = hooks;
    // Called inside the batch's transaction, better-sqlite3 makes this a SAVEPOINT, rolled back to
    // (and released) when the write throws.
    this.#savepoint = database.transaction((entry: Entry) => entry.apply());
    this.#batch = database.transaction((entries: readonly Entry[], failures: (LeashError | null)[]) => {
      hooks.begin();
      entries.forEach((entry, index) => {
        try {
          this.#savepoint(entry);
        } catch (error) {
          // An error that ended the whole transaction (SQLite rolls back on some I/O and full-disk
          // errors) took the earlier writes with it: it is the batch's failure, not this write's.
          if (!database.inTransaction) throw error;
          failures[index] = toLeashError(error, { ...entry.operation, path: this.#path });
        }
      });
      hooks.end();
    });
  }

  /** Queues a write for the current turn's batch; resolves once it is committed, or rejects with why not. */
  write(write: QueuedWrite): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ ...write, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After the I/O and timers of this turn: every save they lead to joins the same batch.
        setImmediate(() => this.#turn());
      }
    });
  }

  /** How many writes wait for a batch. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Commits every waiting write now, batch after batch (before the connection closes). */
  drain(): void {
    while (this.#queue.length > 0) this.#commitBatch();
  }

  #turn(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0) return;
    this.#commitBatch();
    if (this.#queue.length > 0 && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#turn());
    }
  }

  #commitBatch(): void {
    const entries = this.#queue.splice(0, MAX_BATCH_WRITES);
    const failures: (LeashError | null)[] = entries.map(() => null);
    try {
      this.#hooks.before(entries);
      this.#batch.immediate(entries, failures);
    } catch (error) {
      this.#hooks.failed();
      entries.forEach((entry, index) => {
        failures[index] ??= toLeashError(error, { ...entry.operation, path: this.#path });
      });
    }
    entries.forEach((entry, index) => {
      const failure = failures[index];
      if (failure !== null && failure !== undefined) {
        entry.reject(failure);
        return;
      }
      entry.committed();
      entry.resolve();
    });
  }
}
