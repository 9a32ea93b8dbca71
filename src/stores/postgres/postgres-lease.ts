import { LeashError } from "../../errors/index.js";
import type { PostgresPool } from "./postgres-pool.js";
import { queryOnce } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** Options of `PostgresStore.lease`. */
export interface LeaseOptions {
  /** Who takes the leases: a name unique to one worker process (host, pid and a random part). */
  worker: string;
  /** The most runs leased at once; default 1. */
  limit?: number;
  /** How long a lease lasts unless renewed; after that another worker may take the run. */
  ttlMs: number;
  /**
   * Lease only runs created after this one (by the store's `position`, the order runs are leased in):
   * the last run a worker tried in its current pass, so that the pass moves on through the backlog
   * with one parameter, however long the backlog is, and ends at its end.
   */
  after?: string;
  /** Run ids not to lease. Kept for callers that track their own; a worker's pass uses `after`. */
  exclude?: readonly string[];
  /**
   * Also lease runs left `running` by a worker whose lease ran out (the worker crashed mid-run), so
   * that a resume recovers them; default false. Runs started outside a worker never carry a lease,
   * and are never taken this way.
   */
  recover?: boolean;
}

/** Options of `PostgresStore.renewLease` and `PostgresStore.releaseLease`. */
export interface LeaseHolder {
  worker: string;
  runIds: readonly string[];
}

function checkWorker(worker: unknown): void {
  if (typeof worker !== "string" || worker.length === 0)
    throw new LeashError("invalid_option", "Expected `worker` to be a non-empty string.");
}

function checkPositive(value: unknown, name: string): void {
  if (!Number.isSafeInteger(value) || (value as number) <= 0)
    throw new LeashError("invalid_option", `Expected \`${name}\` to be a positive integer.`);
}

function checkRunIds(runIds: unknown): void {
  if (!Array.isArray(runIds) || !runIds.every((runId) => typeof runId === "string")) {
    throw new LeashError("invalid_option", "Expected `runIds` to be an array of run ids.");
  }
}

/**
 * Leases runs for one worker in one short statement, in the order runs were created, after the run
 * `after` when given (a run id that is not stored leases nothing: the cursor is past the end).
 * Rows are claimed with `FOR UPDATE SKIP LOCKED`,
 * so workers polling at the same moment each get different runs and never wait on each other, and
 * the lease is an expiry time on the database's clock, so a crashed worker's lease runs out by itself
 * and machines need not agree on the time.
 */
export async function leaseRuns(pool: PostgresPool, tables: PostgresTables, options: LeaseOptions): Promise<string[]> {
  checkWorker(options.worker);
  const limit = options.limit ?? 1;
  checkPositive(limit, "limit");
  checkPositive(options.ttlMs, "ttlMs");
  const exclude = options.exclude ?? [];
  checkRunIds(exclude);
  const recover = options.recover === true;
  const after = options.after;
  if (after !== undefined && typeof after !== "string")
    throw new LeashError("invalid_option", "Expected `after` to be a run id.");
  const result = await queryOnce(
    pool,
    "leasing runs",
    `WITH candidates AS (
       SELECT run_id FROM ${tables.runs}
       WHERE (leased_until IS NULL OR leased_until < clock_timestamp())
         AND NOT (run_id = ANY ($4::text[]))
         AND ($6::text IS NULL OR position > (SELECT position FROM ${tables.runs} WHERE run_id = $6::text))
         AND ((status = 'awaiting_approval' AND answer_count > 0)
              OR ($5::boolean AND status = 'running' AND leased_by IS NOT NULL))
       ORDER BY position
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE ${tables.runs} AS runs
     SET leased_by = $1, leased_until = clock_timestamp() + $3::double precision * interval '1 millisecond'
     FROM candidates
     WHERE runs.run_id = candidates.run_id
     RETURNING runs.run_id, runs.position`,
    [options.worker, limit, options.ttlMs, exclude, recover, after ?? null],
  );
  return result.rows
    .sort((left, right) => Number(left.position) - Number(right.position))
    .map((row) => String(row.run_id));
}

/** Extends a worker's leases; returns the run ids it still holds (a lease taken over is not renewed). */
export async function renewLeases(
  pool: PostgresPool,
  tables: PostgresTables,
  holder: LeaseHolder & { ttlMs: number },
): Promise<string[]> {
  checkWorker(holder.worker);
  checkRunIds(holder.runIds);
  checkPositive(holder.ttlMs, "ttlMs");
  if (holder.runIds.length === 0) return [];
  const result = await queryOnce(
    pool,
    "renewing leases",
    `UPDATE ${tables.runs} SET leased_until = clock_timestamp() + $3::double precision * interval '1 millisecond'
     WHERE run_id = ANY ($2::text[]) AND leased_by = $1
     RETURNING run_id`,
    [holder.worker, [...holder.runIds], holder.ttlMs],
  );
  return result.rows.map((row) => String(row.run_id));
}

/** Gives a worker's leases back, so other workers may take the runs at once. */
export async function releaseLeases(pool: PostgresPool, tables: PostgresTables, holder: LeaseHolder): Promise<void> {
  checkWorker(holder.worker);
  checkRunIds(holder.runIds);
  if (holder.runIds.length === 0) return;
  await queryOnce(
    pool,
    "releasing leases",
    `UPDATE ${tables.runs} SET leased_by = NULL, leased_until = NULL WHERE run_id = ANY ($2::text[]) AND leased_by = $1`,
    [holder.worker, [...holder.runIds]],
  );
}
