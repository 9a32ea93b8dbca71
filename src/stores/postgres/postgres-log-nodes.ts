import { LeashError } from "../../errors/index.js";
import type { Hash, NodeId } from "../../evidence/merkle.js";
import type { NodeStore, StoredNode } from "../../evidence/node-store.js";
import { storeFailed } from "./postgres-errors.js";
import type { PostgresQueryResult } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** Where a query runs: a pool (a statement of its own) or a client inside a transaction. */
interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
}

/**
 * The `leash_log_nodes` table of a {@link PostgresStore}: the complete subtrees of its Merkle log, one
 * row per node keyed on (level, idx). A batch of nodes is one statement each way (the O(log n) nodes
 * of a root or a proof, the nodes a sequencing batch completes), on a pool or on the sequencer's
 * transaction.
 */
export class PostgresNodeStore implements NodeStore {
  readonly #queryable: () => Promise<PostgresQueryable>;
  readonly #table: string;

  constructor(queryable: () => Promise<PostgresQueryable>, tables: PostgresTables) {
    this.#queryable = queryable;
    this.#table = tables.logNodes;
  }

  async readNodes(nodes: readonly NodeId[]): Promise<Hash[]> {
    if (nodes.length === 0) return [];
    const result = await this.#query(
      "reading the log's stored subtrees",
      `SELECT stored.hash FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY AS wanted (level, idx, ordinal)
       LEFT JOIN ${this.#table} AS stored ON stored.level = wanted.level AND stored.idx = wanted.idx
       ORDER BY wanted.ordinal`,
      [nodes.map((node) => node.level), nodes.map((node) => node.index)],
    );
    return result.rows.map((row, position) => {
      if (!(row.hash instanceof Uint8Array)) {
        const { level, index } = nodes[position]!;
        throw new LeashError("store_failed", `The log's stored tree has no node ${index} at level ${level}.`, {
          details: { level, index },
        });
      }
      return new Uint8Array(row.hash);
    });
  }

  async writeNodes(nodes: readonly StoredNode[]): Promise<void> {
    if (nodes.length === 0) return;
    await this.#query(
      "writing the log's stored subtrees",
      `INSERT INTO ${this.#table} (level, idx, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])`,
      [nodes.map((node) => node.level), nodes.map((node) => node.index), nodes.map((node) => Buffer.from(node.hash))],
    );
  }

  async #query(doing: string, text: string, values: unknown[]): Promise<PostgresQueryResult> {
    try {
      return await (await this.#queryable()).query(text, values);
    } catch (error) {
      throw storeFailed(error, doing);
    }
  }
}
