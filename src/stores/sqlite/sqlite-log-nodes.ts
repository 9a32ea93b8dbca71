import type { Database, Statement, Transaction } from "better-sqlite3";
import { LeashError } from "../../errors/index.js";
import type { Hash, NodeId } from "../../evidence/merkle.js";
import { nodeRanges, type NodeStore, type StoredNode } from "../../evidence/node-store.js";

/** How many nodes one insert statement writes. */
const ROWS_A_STATEMENT = 64;

/**
 * The `leash_log_nodes` table of a {@link SqliteStore}: the complete subtrees of its Merkle log, one
 * row per node keyed on (level, idx), answered at once (better-sqlite3 is synchronous, so the
 * sequencer reads and writes them inside its transaction). A write inside the caller's transaction
 * joins it; alone it is a transaction of its own.
 */
export class SqliteNodeStore implements NodeStore {
  readonly #readRange: Statement<[number, number, number], { idx: number; hash: Buffer }>;
  readonly #write: Transaction<(nodes: readonly StoredNode[]) => void>;

  constructor(database: Database) {
    this.#readRange = database.prepare(
      "SELECT idx, hash FROM leash_log_nodes WHERE level = ? AND idx BETWEEN ? AND ? ORDER BY idx",
    );
    const insert = database.prepare<[number, number, Buffer]>(
      "INSERT INTO leash_log_nodes (level, idx, hash) VALUES (?, ?, ?)",
    );
    // Many rows a statement: a sequencing batch writes about two nodes a record, and one statement a
    // node would cost more in calls than in the b-tree.
    const insertMany = database.prepare<unknown[]>(
      `INSERT INTO leash_log_nodes (level, idx, hash) VALUES ${Array(ROWS_A_STATEMENT).fill("(?, ?, ?)").join(", ")}`,
    );
    this.#write = database.transaction((nodes: readonly StoredNode[]) => {
      let next = 0;
      for (; next + ROWS_A_STATEMENT <= nodes.length; next += ROWS_A_STATEMENT) {
        const values: unknown[] = [];
        for (const { level, index, hash } of nodes.slice(next, next + ROWS_A_STATEMENT))
          values.push(level, index, Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength));
        insertMany.run(values);
      }
      for (const { level, index, hash } of nodes.slice(next)) insert.run(level, index, Buffer.from(hash));
    });
  }

  readNodes(nodes: readonly NodeId[]): Hash[] {
    // One query per run of neighbouring nodes of a level: a check of a page of leaves asks for
    // thousands of them, and one query a node would cost more in calls than in the b-tree.
    const found = new Map<number, Map<number, Buffer>>();
    for (const { level, first, last } of nodeRanges(nodes)) {
      let ofLevel = found.get(level);
      if (ofLevel === undefined) found.set(level, (ofLevel = new Map<number, Buffer>()));
      for (const row of this.#readRange.all(level, first, last)) ofLevel.set(row.idx, row.hash);
    }
    return nodes.map(({ level, index }) => {
      const hash = found.get(level)?.get(index);
      if (hash === undefined) {
        throw new LeashError("store_failed", `The log's stored tree has no node ${index} at level ${level}.`, {
          details: { level, index },
        });
      }
      return new Uint8Array(hash);
    });
  }

  writeNodes(nodes: readonly StoredNode[]): void {
    this.#write(nodes);
  }
}
