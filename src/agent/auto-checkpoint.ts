import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import { LeashError, checkOptionKeys, messageOf } from "../errors/index.js";
import { isCheckpointOrigin } from "../evidence/checkpoint-text.js";
import { evidenceLogOf, type EvidenceLogOwner } from "../evidence/evidence-log-of.js";
import { parseSignerKey } from "../evidence/note-keys.js";
import type { StoreEvidenceLog } from "../evidence/store-evidence-log.js";

/**
 * The `checkpoint` option of an agent: sign the audit sink's log as a checkpoint (C2SP
 * tlog-checkpoint) and store it in the sink's log, every `every` records this agent writes and/or at
 * the end of each run. A checkpoint that fails never fails the run: it is reported to
 * `agent.on("checkpoint_failed")`.
 */
export interface CheckpointOptions {
  /** The signer key's text (`PRIVATE+KEY+…`, as `leash keygen` writes it). */
  key: string;
  /** The log's origin line, e.g. `example.com/leash`. */
  origin: string;
  /** Checkpoint once this agent has written this many records since its last checkpoint. */
  every?: number;
  /** Checkpoint when a run ends (its `run_ended` record is written). Default true when `every` is not given. */
  atRunEnd?: boolean;
}

/** What `checkpoint_failed` carries: why an automatic checkpoint was not signed or stored. */
export interface CheckpointFailedEvent {
  /** The error's code (`audit_invalid` for a log whose chains do not verify, `store_failed`, …). */
  code: string;
  message: string;
}

const invalid = (message: string): never => {
  throw new LeashError("invalid_option", message);
};

/**
 * Signs and stores an agent's automatic checkpoints (`StoreEvidenceLog.checkpoint`: only the records
 * since the latest stored checkpoint have their chains checked), one at a time, after the records that make one
 * due are written (never inside a step's save). A run's driver waits for them before it returns, so
 * a run's end-of-run checkpoint is stored when `agent.run` resolves.
 */
export class AutoCheckpointer {
  readonly #log: StoreEvidenceLog;
  readonly #key: string;
  readonly #origin: string;
  readonly #every: number | undefined;
  readonly #atRunEnd: boolean;
  readonly #failed: (event: CheckpointFailedEvent) => void;
  #since = 0;
  #pending: Promise<void> = Promise.resolve();

  /** Checks the option (before any side effect) and the sink, which must keep a log (`evidenceLogOf`). */
  constructor(options: unknown, audit: AuditSink, failed: (event: CheckpointFailedEvent) => void) {
    if (typeof options !== "object" || options === null)
      invalid("Expected `checkpoint` to be an object { key, origin, every?, atRunEnd? }.");
    checkOptionKeys(options, ["key", "origin", "every", "atRunEnd"], "checkpoint");
    const { key, origin, every, atRunEnd } = options as Partial<CheckpointOptions>;
    if (typeof key !== "string") invalid("Expected `checkpoint.key` to be a signer key's text.");
    parseSignerKey(key!);
    // As signCheckpoint checks it, so that a bad origin is refused here, not by every checkpoint after.
    if (!isCheckpointOrigin(origin))
      invalid(
        "Expected `checkpoint.origin` to be a non-empty line of text without control characters (such as `example.com/leash`).",
      );
    if (every !== undefined && (!Number.isSafeInteger(every) || every < 1))
      invalid("Expected `checkpoint.every` to be a positive integer of records.");
    if (atRunEnd !== undefined && typeof atRunEnd !== "boolean")
      invalid("Expected `checkpoint.atRunEnd` to be a boolean.");
    this.#log = evidenceLogOf(audit as unknown as EvidenceLogOwner);
    this.#key = key!;
    this.#origin = origin!;
    this.#every = every;
    this.#atRunEnd = atRunEnd ?? every === undefined;
    this.#failed = failed;
  }

  /** Notes records once written; queues a checkpoint when they make one due. */
  written(records: readonly AuditRecord[]): void {
    this.#since += records.length;
    const due =
      (this.#every !== undefined && this.#since >= this.#every) ||
      (this.#atRunEnd && records.some((record) => record.event === "run_ended"));
    if (!due) return;
    this.#since = 0;
    this.#pending = this.#pending.then(() => this.#checkpoint());
  }

  /** Resolves once every queued checkpoint is stored or reported; never rejects. */
  settled(): Promise<void> {
    return this.#pending;
  }

  async #checkpoint(): Promise<void> {
    try {
      await this.#log.checkpoint({ key: this.#key, origin: this.#origin });
    } catch (error) {
      const code = error instanceof LeashError ? error.code : "internal_error";
      this.#failed({ code, message: `An automatic checkpoint failed: ${messageOf(error)}` });
    }
  }
}
