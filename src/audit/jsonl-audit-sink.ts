import * as nodeFs from "node:fs";
import { dirname } from "node:path";
import { isLeashError, LeashError, messageOf, checkOptionKeys } from "../errors/index.js";
import type { AuditHead, AuditRecord } from "./audit-record.js";
import type { SyncReadableAuditSink } from "./audit-sink.js";
import { checkChain } from "./chain-heads.js";
import { checkRecords } from "./check-records.js";
import { parseAuditBytes, tornError, type TornTail } from "./read-audit.js";

/**
 * When a {@link JsonlAuditSink} calls fsync: `"none"` leaves it to the operating system (a process crash
 * loses nothing written, a machine crash may); `"always"` syncs every append before it returns;
 * `"batch"` syncs appends in groups (group commit), each resolving once a sync that began after its
 * write has finished.
 */
export type FsyncMode = "none" | "batch" | "always";

const FSYNC_MODES: readonly FsyncMode[] = ["none", "batch", "always"];

/** @internal The file operations a {@link JsonlAuditSink} uses; `node:fs` by default, replaced in tests. */
export interface AuditFileSystem {
  openSync(path: string, flags: string): number;
  closeSync(descriptor: number): void;
  writeSync(descriptor: number, buffer: Uint8Array, offset: number, length: number): number;
  fsyncSync(descriptor: number): void;
  fsync(descriptor: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  fstatSync(descriptor: number): { size: number; dev: number; ino: number };
  readSync(descriptor: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
}

/** Options of {@link JsonlAuditSink}. */
export interface JsonlAuditSinkOptions {
  /** When to call fsync; default `"none"`. */
  fsync?: FsyncMode;
  /** @internal Replaces `node:fs`, so that tests can make a write or an fsync fail. */
  fileSystem?: AuditFileSystem;
}

const defaultFileSystem: AuditFileSystem = nodeFs;

/** How many times a torn-looking last line is looked at while the file grows, before it is reported torn. */
const MAX_TORN_LOOKS = 3;

/**
 * How many times in a row a torn-looking last line is looked at again, with no growth of the file in
 * between, before an append or a read calls it torn: the waits double from 1 ms to 1,024 ms, about 2 s in
 * all, since another process may be writing that line (a big line takes several writes of the kernel
 * to appear whole). A file that grows starts the count again.
 */
const QUIET_LOOKS = 11;

/** A torn-looking last line, and the size of the file when it was seen. */
interface TornLook {
  torn: TornTail;
  problem: string;
  size: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * An audit sink that appends one JSON line per record to a file (JSONL), opened lazily in append mode.
 *
 * A write or fsync that fails breaks the sink for good: that append, every append waiting and every
 * later one are refused with `audit_failed`. A failed fsync is never retried, because after it the
 * kernel may have dropped the dirty pages and a second fsync would report a success that is not one
 * (PostgreSQL's "fsyncgate").
 *
 * Reading is incremental: the sink keeps the records it has parsed and the byte offset read so far, and
 * on each read parses only what was appended since by another process: what it writes itself, right
 * after what it had read, it adds to what it keeps as it writes. It assumes the file only grows by
 * appends; a file that shrank or was replaced is read again from the start.
 *
 * @example
 * const sink = new JsonlAuditSink("audit.jsonl", { fsync: "batch" });
 * const agent = new Agent({ tools, planner, audit: sink });
 * await agent.run("Find the page about spans.");
 * console.log(verifyAudit(sink.records)); // []
 * await sink.close();
 */
export class JsonlAuditSink implements SyncReadableAuditSink {
  /** The file the records go to. */
  readonly path: string;
  /** When the sink calls fsync. */
  readonly fsync: FsyncMode;
  readonly #fs: AuditFileSystem;
  #descriptor: number | null = null;
  #failure: LeashError | null = null;
  #fsyncCount = 0;
  // A whole record at the end of the file with no "\n" after it (an edited file): the next write starts
  // with "\n" so that it does not run on from that record's line.
  #endsWithoutNewline = false;
  #waiting: Waiter[] = [];
  #inFlight: Waiter[] = [];
  #syncing: Promise<void> | null = null;
  #records: AuditRecord[] = [];
  #byRun = new Map<string, AuditRecord[]>();
  #tail: AuditRecord | null = null;
  #offset = 0;
  #nextLine = 1;
  #identity: string | null = null;

  constructor(path: string, options: JsonlAuditSinkOptions = {}) {
    if (typeof path !== "string" || path === "") {
      throw new LeashError("invalid_option", "Expected `path` to be a non-empty string.");
    }
    if (typeof options !== "object" || options === null) {
      throw new LeashError("invalid_option", "Expected the options of JsonlAuditSink to be an object.");
    }
    checkOptionKeys(options, ["fsync", "fileSystem"], "new JsonlAuditSink(path, options)");
    const fsync: unknown = options.fsync ?? "none";
    if (!FSYNC_MODES.includes(fsync as FsyncMode)) {
      throw new LeashError("invalid_option", 'Expected `fsync` to be one of "none", "batch" or "always".');
    }
    if (options.fileSystem !== undefined && (typeof options.fileSystem !== "object" || options.fileSystem === null)) {
      throw new LeashError("invalid_option", "Expected `fileSystem` to be an object of file operations.");
    }
    this.path = path;
    this.fsync = fsync as FsyncMode;
    this.#fs = options.fileSystem ?? defaultFileSystem;
  }

  /** How many fsyncs of the file have completed. */
  get fsyncCount(): number {
    return this.#fsyncCount;
  }

  /**
   * Appends records as JSON lines, in call order, in one write. With `"none"` and `"always"` it writes
   * (and syncs) before it returns and throws on failure; with `"batch"` it writes before it returns and
   * resolves once a later fsync has covered the write. Records that are not well-formed, or do not
   * continue their run's chain in the file (a gap, a wrong `prev`), are refused with `audit_corrupt`,
   * and a record at a seq the file holds already with `StateError` `stale_state` (another writer
   * moved the chain first), before anything is written. The heads come from reading the file, so
   * this holds between writers of one process; writers in several processes should share a store.
   * A last line with no line end may be another process's line still being written: an append or a
   * read waits for it (waits that double from 1 ms, for as long as the file grows, and at most about
   * 2 s with no growth) before it is refused with `audit_torn`. The `records` getter cannot wait.
   */
  append(records: readonly AuditRecord[]): void | Promise<void> {
    try {
      return this.#appendNow(records);
    } catch (error) {
      if (!isLeashError(error, "audit_torn")) throw error;
      return this.#afterTorn(error, () => this.append(records));
    }
  }

  #appendNow(records: readonly AuditRecord[]): void | Promise<void> {
    if (this.fsync === "batch") {
      let wrote: boolean;
      try {
        wrote = this.#writeRecords(records);
      } catch (error) {
        // A torn-looking last line is waited for by `append`; anything else rejects the promise.
        if (isLeashError(error, "audit_torn")) throw error;
        return Promise.reject(error instanceof Error ? error : new Error(messageOf(error)));
      }
      if (!wrote) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        this.#waiting.push({ resolve, reject });
        if (this.#syncing === null) this.#startSync(this.#descriptor as number);
      });
    }
    if (!this.#writeRecords(records) || this.fsync === "none") return;
    try {
      this.#fs.fsyncSync(this.#descriptor as number);
    } catch (error) {
      throw this.#fail(error, "fsync");
    }
    this.#fsyncCount++;
  }

  /**
   * After an `audit_torn`: the torn-looking last line may be another process's line still being
   * written, so the file is looked at again, with waits that double, until it reads whole (then `again`
   * runs) or it stopped growing for {@link QUIET_LOOKS} looks (then it is torn). Any other error is
   * thrown as it is.
   */
  async #afterTorn<T>(error: unknown, again: () => T | Promise<T>): Promise<T> {
    if (!isLeashError(error, "audit_torn")) throw error;
    let torn: unknown = error;
    let size = this.#sizeNow();
    let delay = 1;
    for (let quiet = 0; ;) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const now = this.#sizeNow();
      if (now === size) {
        if (++quiet >= QUIET_LOOKS) throw torn;
        delay *= 2;
        continue;
      }
      size = now;
      quiet = 0;
      delay = 1;
      try {
        this.#refresh();
      } catch (failure) {
        if (!isLeashError(failure, "audit_torn")) throw failure;
        torn = failure;
        continue;
      }
      return again();
    }
  }

  /** The file's size now (a cheap look: no bytes read), or -1 when there is no file. */
  #sizeNow(): number {
    let descriptor: number;
    try {
      descriptor = this.#fs.openSync(this.path, "r");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw this.#readError(error);
      return -1;
    }
    try {
      return this.#fs.fstatSync(descriptor).size;
    } catch (error) {
      throw this.#readError(error);
    } finally {
      this.#fs.closeSync(descriptor);
    }
  }

  /** Every record of the file, read back (incrementally); `[]` when the file does not exist yet. */
  get records(): AuditRecord[] {
    this.#refresh();
    return this.#tail === null ? this.#records.slice() : [...this.#records, this.#tail];
  }

  /** One run's records in file order (seq order, for a sound trail), or every record without a run id. */
  read(runId?: string): Promise<AuditRecord[]> {
    const readNow = (): AuditRecord[] => {
      if (runId === undefined) return this.records;
      this.#refresh();
      const records = this.#byRun.get(runId)?.slice() ?? [];
      if (this.#tail !== null && this.#tail.run === runId) records.push(this.#tail);
      return records;
    };
    try {
      return Promise.resolve(readNow());
    } catch (error) {
      return this.#afterTorn(error, readNow);
    }
  }

  /** Closes the file once the pending fsync, if any, has completed. A later append opens it again. */
  async close(): Promise<void> {
    while (this.#syncing !== null) await this.#syncing;
    const descriptor = this.#descriptor;
    if (descriptor === null) return;
    this.#descriptor = null;
    try {
      this.#fs.closeSync(descriptor);
    } catch (error) {
      throw new LeashError("audit_failed", `Could not close the audit trail ${this.path}: ${messageOf(error)}`, {
        details: { path: this.path },
        cause: error,
      });
    }
  }

  /** Writes the records; false when there was nothing to write. Throws when the sink is broken. */
  #writeRecords(records: readonly AuditRecord[]): boolean {
    if (this.#failure !== null) throw this.#failure;
    const checked = checkRecords(records);
    if (checked.length === 0) return false;
    // The heads of the runs come from the file as it is now (what other writers appended included),
    // so a record that does not continue its run's chain is refused before anything is written.
    this.#refresh();
    checkChain(checked, (runId) => this.#headOf(runId), { continuesElsewhere: true });
    let text = "";
    for (const record of checked) text += lineOf(record);
    const descriptor = this.#open();
    // Whether what was read so far ends with a whole line, so that these records could follow it.
    const followsIndex = !this.#endsWithoutNewline && this.#tail === null;
    if (this.#endsWithoutNewline) text = `\n${text}`;
    const buffer = Buffer.from(text, "utf8");
    try {
      // A write to a file may be partial (a signal, a full disk): the rest is written after it.
      for (let written = 0; written < buffer.length;) {
        const count = this.#fs.writeSync(descriptor, buffer, written, buffer.length - written);
        if (count <= 0) throw new Error("the file accepted no more bytes");
        written += count;
      }
    } catch (error) {
      throw this.#fail(error, "write to");
    }
    this.#endsWithoutNewline = false;
    if (followsIndex) this.#indexWritten(descriptor, checked, buffer.length);
    return true;
  }

  /**
   * Adds records this sink has just written to what it keeps, instead of parsing them back at the next
   * read, when nothing else was written to the file between what it had read and them: the file, still
   * the one read, is then exactly as long as what was read plus what was written. Otherwise it does
   * nothing, and the next read parses them (and whatever else came) from the file.
   */
  #indexWritten(descriptor: number, records: readonly AuditRecord[], length: number): void {
    let size: number;
    let identity: string;
    try {
      const stat = this.#fs.fstatSync(descriptor);
      size = stat.size;
      identity = `${stat.dev}:${stat.ino}`;
    } catch {
      // Only a shortcut is lost: the next read parses the records from the file.
      return;
    }
    // A file that did not exist at the last read and now holds exactly these bytes was made by this write.
    const sameFile = identity === this.#identity || (this.#identity === null && this.#offset === 0);
    if (!sameFile || size !== this.#offset + length) return;
    this.#identity = identity;
    for (const record of records) this.#keep(record);
    this.#offset += length;
    this.#nextLine += records.length;
  }

  #startSync(descriptor: number): void {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#inFlight = batch;
    let settle = (): void => {};
    this.#syncing = new Promise<void>((resolve) => (settle = resolve));
    let finished = false;
    const finish = (error: unknown): void => {
      if (finished) return;
      finished = true;
      this.#inFlight = [];
      if (error !== null && error !== undefined) {
        const failure = this.#fail(error, "fsync");
        for (const waiter of batch) waiter.reject(failure);
      } else if (this.#failure === null) {
        this.#fsyncCount++;
        for (const waiter of batch) waiter.resolve();
      }
      this.#syncing = null;
      settle();
      // Appends written while this fsync ran may have missed it: they wait for one that starts now.
      if (this.#failure === null && this.#waiting.length > 0) this.#startSync(descriptor);
    };
    try {
      this.#fs.fsync(descriptor, finish);
    } catch (error) {
      finish(error);
    }
  }

  #fail(error: unknown, what: string): LeashError {
    if (this.#failure === null) {
      this.#failure = new LeashError(
        "audit_failed",
        `Could not ${what} the audit trail ${this.path} (${messageOf(error)}); the sink refuses every later ` +
          "append, since what it wrote can no longer be known to be durable.",
        { details: { path: this.path }, cause: error },
      );
    }
    const failure = this.#failure;
    const waiting = [...this.#inFlight, ...this.#waiting];
    this.#inFlight = [];
    this.#waiting = [];
    for (const waiter of waiting) waiter.reject(failure);
    return failure;
  }

  #open(): number {
    if (this.#descriptor !== null) return this.#descriptor;
    // Reading first refuses a trail that ends in a torn line, which the next line would run on from.
    this.#refresh();
    const created = this.#identity === null;
    this.#endsWithoutNewline = this.#tail !== null;
    try {
      this.#descriptor = this.#fs.openSync(this.path, "a");
    } catch (error) {
      throw new LeashError("audit_failed", `Could not open the audit trail ${this.path}: ${messageOf(error)}`, {
        details: { path: this.path },
        cause: error,
      });
    }
    if (created && this.fsync !== "none") {
      // A new file survives a machine crash only once its directory entry is durable too.
      try {
        const directory = this.#fs.openSync(dirname(this.path), "r");
        try {
          this.#fs.fsyncSync(directory);
        } finally {
          this.#fs.closeSync(directory);
        }
      } catch (error) {
        throw this.#fail(error, "fsync the directory of");
      }
    }
    return this.#descriptor;
  }

  /**
   * Parses what was appended to the file since the last read. A last line that another process is
   * still writing looks torn for a moment, so a torn-looking tail is looked at again, but only while
   * the file keeps growing (at most three looks): a file whose size did not change since the last look
   * is reported torn at once (`audit_torn`), never read again and again.
   */
  #refresh(): void {
    let seen: TornLook | null = null;
    for (let look = 1; ; look++) {
      const found = this.#readNewBytes(seen?.size);
      if (found === null) return;
      const torn = found === "unchanged" ? (seen as TornLook) : found;
      if (found === "unchanged" || look === MAX_TORN_LOOKS) throw tornError(this.path, torn.torn, torn.problem);
      seen = found;
    }
  }

  /**
   * Reads and indexes the whole lines appended since the last read; returns a torn tail, if any, or
   * `"unchanged"` when the file is still `unchangedSize` bytes long (nothing new to read).
   */
  #readNewBytes(unchangedSize?: number): TornLook | "unchanged" | null {
    let descriptor: number;
    try {
      descriptor = this.#fs.openSync(this.path, "r");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw this.#readError(error);
      this.#reset(null);
      return null;
    }
    try {
      const { size, dev, ino } = this.#fs.fstatSync(descriptor);
      const identity = `${dev}:${ino}`;
      if (identity === this.#identity && size === unchangedSize) return "unchanged";
      if (identity !== this.#identity || size < this.#offset) this.#reset(identity);
      this.#tail = null;
      if (size === this.#offset) return null;
      const buffer = Buffer.allocUnsafe(size - this.#offset);
      let length = 0;
      while (length < buffer.length) {
        const count = this.#fs.readSync(descriptor, buffer, length, buffer.length - length, this.#offset + length);
        if (count <= 0) break;
        length += count;
      }
      const parsed = parseAuditBytes(buffer.subarray(0, length), this.path, this.#nextLine);
      for (const record of parsed.records) this.#keep(record);
      const base = this.#offset;
      this.#offset += parsed.completeBytes;
      this.#nextLine = parsed.nextLine;
      if (parsed.tail?.type === "record") this.#tail = parsed.tail.record;
      if (parsed.tail?.type !== "torn") return null;
      return {
        torn: { ...parsed.tail.torn, offset: base + parsed.tail.torn.offset },
        problem: parsed.tail.problem,
        size,
      };
    } catch (error) {
      throw error instanceof LeashError ? error : this.#readError(error);
    } finally {
      this.#fs.closeSync(descriptor);
    }
  }

  /** The last record of a run in the file as last read, or null. */
  #headOf(runId: string): AuditHead | null {
    const last = this.#tail?.run === runId ? this.#tail : this.#byRun.get(runId)?.at(-1);
    return last === undefined ? null : { seq: last.seq, digest: last.digest };
  }

  #keep(record: AuditRecord): void {
    this.#records.push(record);
    const run = this.#byRun.get(record.run);
    if (run === undefined) this.#byRun.set(record.run, [record]);
    else run.push(record);
  }

  #reset(identity: string | null): void {
    this.#records = [];
    this.#byRun = new Map();
    this.#tail = null;
    this.#offset = 0;
    this.#nextLine = 1;
    this.#identity = identity;
  }

  #readError(error: unknown): LeashError {
    return new LeashError("audit_failed", `Could not read the audit trail ${this.path}: ${messageOf(error)}`, {
      details: { path: this.path },
      cause: error,
    });
  }
}

// JSON.stringify leaves U+2028 and U+2029 as they are; escaped, a line can never look like two to a
// reader that splits on them.
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function lineOf(record: AuditRecord): string {
  const text = JSON.stringify(record);
  return `${text.replace(LINE_SEPARATORS, (separator) => (separator === "\u2028" ? "\\u2028" : "\\u2029"))}\n`;
}
