import type { RunStore } from "../stores/run-store.js";

/**
 * A store that can lease runs to one worker at a time (PostgreSQL's `PostgresStore` can). Against a
 * store without leases, workers rely on the compare-and-set claim inside `agent.resume` alone.
 */
export interface LeasingStore extends RunStore {
  /** Leases up to `limit` runs that need a worker; returns their ids (see `PostgresStore.lease`). */
  lease(options: {
    worker: string;
    limit?: number;
    ttlMs: number;
    /** Only runs created after this one: the worker's cursor through its pass. */
    after?: string;
    exclude?: readonly string[];
    recover?: boolean;
  }): Promise<string[]>;
  /** Extends the worker's leases; returns the run ids it still holds. */
  renewLease(holder: { worker: string; runIds: readonly string[]; ttlMs: number }): Promise<string[]>;
  /** Gives the worker's leases back. */
  releaseLease(holder: { worker: string; runIds: readonly string[] }): Promise<void>;
}

/** Whether a store can lease runs to workers. */
export function isLeasingStore(store: RunStore): store is LeasingStore {
  const methods = store as unknown as Record<string, unknown>;
  return (
    typeof methods.lease === "function" &&
    typeof methods.renewLease === "function" &&
    typeof methods.releaseLease === "function"
  );
}
