import type { AuditRecord } from "../audit/audit-record.js";
import { recordLeafHash } from "./evidence-log.js";
import type { CheckpointRow, LogTables, RecordLeaf } from "./log-tables.js";
import { MerkleLog } from "./merkle-log.js";
import { MemoryNodeStore } from "./node-store.js";

/**
 * The {@link LogTables} of a sink that holds its records in memory (a `MemoryStore`, a
 * `MemoryAuditSink`): its records are appended in order and never move, so the n-th record held is
 * leaf n, and sequencing appends the leaves of the records that came since.
 */
export class MemoryLogTables implements LogTables {
  readonly nodes = new MemoryNodeStore();
  readonly #records: () => readonly AuditRecord[];
  readonly #log = new MerkleLog(this.nodes);
  readonly #indexes = new Map<string, number>();
  readonly #checkpoints: CheckpointRow[] = [];

  /** Tables over `records`, read anew at each sequencing (the sink's records, in the order appended). */
  constructor(records: () => readonly AuditRecord[]) {
    this.#records = records;
  }

  sequence(): number {
    const records = this.#records();
    const fresh = records.slice(this.#log.size);
    fresh.forEach((record, offset) => this.#indexes.set(`${record.seq} ${record.run}`, this.#log.size + offset));
    void this.#log.append(fresh.map((record) => recordLeafHash(record.digest)));
    return this.#log.size;
  }

  headSize(): number {
    return this.#log.size;
  }

  leafCount(): number {
    return this.sequence();
  }

  recordLeaves(start: number, end: number): RecordLeaf[] {
    return this.#records()
      .slice(start, Math.min(end, this.#log.size))
      .map((record, offset) => ({ leafIndex: start + offset, hash: recordLeafHash(record.digest) }));
  }

  recordsBetween(start: number, end: number): readonly AuditRecord[] {
    return this.#records().slice(start, Math.min(end, this.#log.size));
  }

  digestMismatches(): { run: string; seq: number }[] {
    return [];
  }

  digestOf(runId: string, seq: number): string | null {
    const index = this.#indexes.get(`${seq} ${runId}`);
    return index === undefined ? null : (this.#records()[index]?.digest ?? null);
  }

  trailPages(): Iterable<readonly AuditRecord[]> {
    // Held in memory already: the whole trail is one page.
    return [this.#records()];
  }

  leafIndexOf(runId: string, seq: number): number | null {
    return this.#indexes.get(`${seq} ${runId}`) ?? null;
  }

  checkpointsAt(treeSize: number): CheckpointRow[] {
    return this.#checkpoints.filter((row) => row.treeSize === treeSize).map((row) => ({ ...row }));
  }

  checkpointRows(): CheckpointRow[] {
    return this.#checkpoints.map((row) => ({ ...row }));
  }

  latestCheckpointRow(): CheckpointRow | null {
    let latest: CheckpointRow | null = null;
    for (const row of this.#checkpoints) if (latest === null || row.treeSize >= latest.treeSize) latest = row;
    return latest === null ? null : { ...latest };
  }

  insertCheckpoint(treeSize: number, note: string): CheckpointRow {
    const row = { id: this.#checkpoints.length + 1, treeSize, note, createdAt: new Date().toISOString() };
    this.#checkpoints.push(row);
    return { ...row };
  }

  updateCheckpoint(id: number, note: string): void {
    const row = this.#checkpoints.find((stored) => stored.id === id);
    if (row !== undefined) row.note = note;
  }
}
