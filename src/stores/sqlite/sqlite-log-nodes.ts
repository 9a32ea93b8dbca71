import type { Database, Statement, Transaction } from "better-sqlite3";
import { LeashError } from "../../errors/index.js";
import type { Hash, NodeId } from "../../evidence/merkle.js";
import type { NodeStore, StoredNode } from "../../evidence/node-store.js";

/**
 * The `leash_log_nodes` table of a {@link SqliteStore}: the complete subtrees of its Merkle log, one
 * row per node keyed on (level, idx), answered at once (better-sqlite3 is synchronous, so the
 * sequencer reads and writes them inside its transaction). A write inside the caller's transaction
 * joins it; alone it is a transaction of its own.
 */
export class SqliteNodeStore implements NodeStore {
  readonly #read: Statement<[number, number], { hash: Buffer }>;
  readonly #write: Transaction<(nodes: readonly StoredNode[]) => void>;

  constructor(database: Database) {
    this.#read = database.prepare("SELECT hash FROM leash_log_nodes WHERE level = ? AND idx = ?");
    const insert = database.prepare<[number, number, Buffer]>(
      "INSERT INTO leash_log_nodes (level, idx, hash) VALUES (?, ?, ?)",
    );
    this.#write = database.transaction((nodes: readonly StoredNode[]) => {
      for (const { level, index, hash } of nodes) insert.run(level, index, Buffer.from(hash));
    });
  }

  readNodes(nodes: readonly NodeId[]): Hash[] {
    return nodes.map(({ level, index }) => {
      const row = this.#read.get(level, index);
      if (row === undefined) {
        throw new LeashError("store_failed", `The log's stored tree has no node ${index} at level ${level}.`, {
          details: { level, index },
        });
      }
      return new Uint8Array(row.hash);
    });
  }

  writeNodes(nodes: readonly StoredNode[]): void {
    this.#write(nodes);
  }
}
