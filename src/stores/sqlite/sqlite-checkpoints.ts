import type { Database } from "better-sqlite3";

/** How often the store looks whether its log needs a checkpoint, in milliseconds. */
const CHECK_INTERVAL_MS = 1000;

/**
 * How many commits of this connection make a checkpoint due. A save writes about five pages to the
 * log, so this is about SQLite's own default of a checkpoint every 1000 pages.
 */
const COMMITS_PER_CHECKPOINT = 200;

/**
 * Moves the write-ahead log into the database file away from the steps of a run. A checkpoint syncs
 * the log and the database file, so when SQLite runs one itself (inside the commit that fills the log
 * past `wal_autocheckpoint` pages) that save costs extra fsyncs, more of them the more often it
 * happens. The store raises `wal_autocheckpoint` far (see `configure`), so that SQLite's own
 * checkpoints only bound the log of a long run in a process that never lets a timer run, and
 * checkpoints itself instead, once this connection has committed enough to be worth it: before a
 * new run is created, from a timer when no write waits for its batch, and when it closes. None of these is inside a save, and each is
 * PASSIVE, never waiting on another process's readers or writer (what one cannot copy yet is left
 * for the next). Checkpointing often enough also matters for speed: after a checkpoint the log starts
 * over and rewrites its file, while a log that only grows makes every commit extend the file, and
 * the file system then syncs its metadata too. Durability does not depend on checkpoints: a commit
 * is durable once it is in the fsynced log.
 */
export class SqliteCheckpoints {
  readonly #database: Database;
  readonly #timer: NodeJS.Timeout;
  #commits = 0;

  /** `writesWaiting` says whether writes wait for their batch: the timer then leaves the checkpoint for later. */
  constructor(database: Database, writesWaiting: () => boolean) {
    this.#database = database;
    // Unreferenced: a store left open must not keep the process alive for its checkpoints. Never
    // ahead of writes that wait for their batch: a checkpoint then would delay them by its fsyncs.
    this.#timer = setInterval(() => {
      if (!writesWaiting()) this.runIfDue();
    }, CHECK_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Notes that this connection committed a write. */
  wrote(): void {
    this.#commits++;
  }

  /** Runs a checkpoint if this connection has committed enough since the last one. */
  runIfDue(): void {
    if (this.#commits >= COMMITS_PER_CHECKPOINT) this.#run();
  }

  /** Stops the timer and checkpoints what this connection wrote, before the database is closed. */
  stop(): void {
    clearInterval(this.#timer);
    if (this.#commits > 0) this.#run();
  }

  #run(): void {
    try {
      this.#database.pragma("wal_checkpoint(PASSIVE)");
      this.#commits = 0;
    } catch {
      // Nothing is lost when a checkpoint fails (every commit is in the fsynced log): the next tick
      // tries again, and a real fault of the file shows at the next save, which reports it.
    }
  }
}
