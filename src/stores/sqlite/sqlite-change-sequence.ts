import type { Database, Statement } from "better-sqlite3";

/**
 * The store's change sequence, the one row of `leash_changes`: every create and save (an answer is
 * a save) takes the next value for its run's `change`. A batch of writes reads the row once when its
 * transaction begins and writes it once before it commits, rather than once a write; it holds the
 * file's write lock meanwhile, so no other writer takes a value in between. A write takes its value
 * only once its statements have all run (`took`), so a write that fails leaves the value to the next
 * one, and a batch whose writes all fail leaves the sequence as it was.
 */
export class SqliteChangeSequence {
  readonly #read: Statement<[], { value: number }>;
  readonly #write: Statement<[number]>;
  #batch: { first: number; last: number } | null = null;

  constructor(database: Database) {
    this.#read = database.prepare("SELECT value FROM leash_changes WHERE id = 1");
    this.#write = database.prepare("UPDATE leash_changes SET value = ? WHERE id = 1");
  }

  /** The value committed last. */
  current(): number {
    return this.#read.get()?.value ?? 0;
  }

  /** Inside a batch's transaction, before its writes. */
  begin(): void {
    const value = this.current();
    this.#batch = { first: value, last: value };
  }

  /** The value the next write takes, inside its savepoint. */
  next(): number {
    if (this.#batch === null) throw new Error("A change is taken only inside a batch of writes.");
    return this.#batch.last + 1;
  }

  /** Notes that the write given `value` by {@link next} has run all its statements. */
  took(value: number): void {
    if (this.#batch !== null) this.#batch.last = value;
  }

  /** Inside the batch's transaction, after its writes: stores the last value taken. */
  end(): void {
    const batch = this.#batch;
    this.#batch = null;
    if (batch !== null && batch.last !== batch.first) this.#write.run(batch.last);
  }

  /** After a batch whose transaction failed: nothing of it was written, the values taken included. */
  abandon(): void {
    this.#batch = null;
  }
}
