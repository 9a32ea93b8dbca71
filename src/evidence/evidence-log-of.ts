import type { AuditRecord } from "../audit/audit-record.js";
import { LeashError } from "../errors/index.js";
import type { EvidenceLog } from "./evidence-log.js";
import { MemoryLogTables } from "./memory-log-tables.js";
import { storeEvidenceLog, type StoreEvidenceLog } from "./store-evidence-log.js";

/** A store that is a Merkle log of its own tables: `SqliteStore` and `PostgresStore` are. */
export interface EvidenceStore {
  /** The store's log (one object per store: sequencing state is shared by every call). */
  evidenceLog(): StoreEvidenceLog;
}

/** A sink that holds its records in memory, in the order appended: `MemoryStore`, `MemoryAuditSink`. */
export interface RecordsHolder {
  readonly records: readonly AuditRecord[];
}

/** What {@link evidenceLogOf} accepts. */
export type EvidenceLogOwner = EvidenceStore | RecordsHolder;

const memoryLogs = new WeakMap<object, StoreEvidenceLog>();

/** Whether a value is an {@link EvidenceLog} already (it reads leaves and checks chains). */
export function isEvidenceLog(value: unknown): value is EvidenceLog {
  if (typeof value !== "object" || value === null) return false;
  const log = value as Partial<EvidenceLog>;
  return typeof log.leafHashes === "function" && typeof log.verifyChains === "function";
}

/**
 * The Merkle log of a store: every audit record it holds is a leaf, in the order it was sequenced,
 * which never changes. A `SqliteStore` or `PostgresStore` keeps the tree and its checkpoints in its
 * own tables; a `MemoryStore` or `MemoryAuditSink` in memory (one log per sink object).
 *
 * @example
 * const log = evidenceLogOf(store);
 * const note = await signCheckpoint(store, { key: signerKey, origin: "example.com/leash" });
 * await log.saveCheckpoint(note, { key: verifierKey });
 * const proof = await log.inclusionProof((await log.leafIndexOf(runId, 0))!, await log.size());
 */
export function evidenceLogOf(store: EvidenceLogOwner): StoreEvidenceLog {
  if (typeof store === "object" && store !== null) {
    if (typeof (store as Partial<EvidenceStore>).evidenceLog === "function") {
      return (store as EvidenceStore).evidenceLog();
    }
    if (typeof (store as { keepEnded?: unknown }).keepEnded === "number") {
      // Its n-th record is not leaf n for long: a forgotten run would remove leaves a checkpoint signed.
      throw new LeashError(
        "invalid_option",
        "A MemoryAuditSink with `keepEnded` forgets ended runs, so it keeps no Merkle log: checkpoints need a sink that keeps every record (a SqliteStore).",
      );
    }
    if (Array.isArray((store as Partial<RecordsHolder>).records)) {
      let log = memoryLogs.get(store);
      if (log === undefined) {
        log = storeEvidenceLog(new MemoryLogTables(() => (store as RecordsHolder).records));
        memoryLogs.set(store, log);
      }
      return log;
    }
  }
  throw new LeashError(
    "invalid_option",
    "Expected a store with an evidence log: a SqliteStore, a PostgresStore, a MemoryStore or a MemoryAuditSink.",
  );
}
