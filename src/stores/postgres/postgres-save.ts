import type { AuditRecord } from "../../audit/audit-record.js";
import { checkChain } from "../../audit/chain-heads.js";
import { StateError } from "../../errors/index.js";
import { insertRecords } from "./postgres-audit-rows.js";
import { SQLSTATE, isRetryable, sqlState, storeFailed } from "./postgres-errors.js";
import { FUNCTION_STATES } from "./postgres-functions.js";
import type { PostgresClient, PostgresPool } from "./postgres-pool.js";
import { inTransaction } from "./postgres-pool.js";
import type { RunRows } from "./postgres-runs.js";
import { batchable } from "./postgres-save-batches.js";
import type { BatchOutcome, SaveBatches } from "./postgres-save-batches.js";
import type { PostgresTables } from "./postgres-tables.js";
import type { BudgetCharge } from "../budget-info.js";
import { budgetRefusalOfRaise, chargeValues } from "./postgres-budgets.js";

/** How often a statement that PostgreSQL aborted to break a deadlock runs again. */
const MAX_ATTEMPTS = 5;

/** The records as the parallel arrays the store's functions take. */
function recordArrays(records: readonly AuditRecord[]): unknown[] {
  return [
    records.map((record) => record.run),
    records.map((record) => record.seq),
    records.map((record) => JSON.stringify(record)),
    records.map((record) => record.digest),
    records.map((record) => record.prev),
  ];
}

/** Whether the links inside the batch hold (each run's first record is for the database to check). */
function linkedInside(records: readonly AuditRecord[]): boolean {
  try {
    checkChain(records, () => null, { continuesElsewhere: true });
    return true;
  } catch {
    return false;
  }
}

/** What a refusal raised by one of the store's functions, or by the trail's key, means. */
interface Refusals {
  runId: string;
  expectedRevision?: number;
  /** What a second writer at the same (run, seq) place is: `stale_state` for a save, `run_exists` for a create. */
  onDuplicate: (error: unknown) => Error;
}

function refusal(error: unknown, refusals: Refusals): Error | undefined {
  const { runId } = refusals;
  switch (sqlState(error)) {
    case FUNCTION_STATES.notFound:
      return new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
    case FUNCTION_STATES.stale: {
      const stored = Number((error as { detail?: unknown }).detail);
      const expected = refusals.expectedRevision ?? 0;
      return new StateError(
        "stale_state",
        `Run \`${runId}\` is at revision ${stored}, not ${expected}: another process moved it.`,
        { details: { runId, stored, expected } },
      );
    }
    case FUNCTION_STATES.exists:
      return new StateError("run_exists", `Run \`${runId}\` exists already.`, { details: { runId } });
    case SQLSTATE.uniqueViolation:
      return refusals.onDuplicate(error);
    case FUNCTION_STATES.budget:
      return budgetRefusalOfRaise(error);
    case undefined:
    default:
      return undefined;
  }
}

/**
 * Runs one call of a store function as the whole of its transaction, on a connection held only for
 * that round trip; refusals become their `StateError`s, a deadlock runs again. `undefined` when the
 * function asked for the records to be checked in full (see {@link FUNCTION_STATES}).
 */
async function callOnce(
  pool: PostgresPool,
  doing: string,
  text: string,
  values: unknown[],
  refusals: Refusals,
): Promise<number | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await pool.query(text, values);
      return Number(result.rows[0]?.change);
    } catch (error) {
      if (sqlState(error) === FUNCTION_STATES.checkChain) return undefined;
      const refused = refusal(error, refusals);
      if (refused !== undefined) throw refused;
      if (!isRetryable(error) || attempt >= MAX_ATTEMPTS) throw storeFailed(error, doing);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * attempt)));
  }
}

/**
 * The slow path, for records the function would not vouch for: the same function with no records,
 * then the records checked against the stored heads in full and inserted, in one transaction, so
 * that the refusal is the exact one (`stale_state` for a lost race, `audit_corrupt` for a broken
 * chain) and nothing is written when there is one.
 */
async function callChecked(
  pool: PostgresPool,
  doing: string,
  call: (client: PostgresClient) => Promise<unknown>,
  tables: PostgresTables,
  records: readonly AuditRecord[],
  refusals: Refusals,
): Promise<void> {
  await inTransaction(pool, doing, async (client) => {
    try {
      await call(client);
    } catch (error) {
      throw refusal(error, refusals) ?? error;
    }
    await insertRecords(client, tables, records, refusals.onDuplicate);
  });
}

/**
 * A save in one statement, `leash_save_run`: the compare-and-set on the revision, the step rows, the
 * summary and its change number, and the records after the chain-head check, all or nothing.
 */
export async function saveRun(
  pool: PostgresPool,
  tables: PostgresTables,
  rows: RunRows,
  expectedRevision: number,
  records: readonly AuditRecord[],
  onDuplicate: (error: unknown) => Error,
  batches?: SaveBatches,
  takeUse?: (client: PostgresClient) => Promise<void>,
  budgetCharge?: BudgetCharge,
): Promise<void> {
  const doing = `saving run \`${rows.runId}\``;
  // With a budget charge, `leash_save_run_charged`: the same save, then the charge, in one statement.
  const charged = budgetCharge !== undefined;
  const text = `SELECT ${charged ? tables.saveRunCharged : tables.saveRun}($1::text, $2::bigint, $3::bigint, $4::text, $5::integer, $6::text, $7::integer,
    $8::boolean, $9::integer[], $10::text[], $11::text, $12::text, $13::text[], $14::bigint[], $15::text[], $16::text[], $17::text[]${
      charged
        ? ", $18::text, $19::double precision, $20::double precision, $21::double precision, $22::text, $23::text"
        : ", $18::text"
    }) AS change`;
  const values = (batch: readonly AuditRecord[]): unknown[] => [
    rows.runId,
    expectedRevision,
    rows.revision,
    rows.status,
    rows.answerCount,
    rows.header,
    rows.stepCount,
    rows.full,
    rows.indexes,
    rows.texts,
    rows.summary,
    rows.updatedKey,
    ...recordArrays(batch),
    ...(budgetCharge === undefined ? [] : chargeValues(budgetCharge)),
    rows.events,
  ];
  const refusals: Refusals = { runId: rows.runId, expectedRevision, onDuplicate };
  if (takeUse !== undefined) {
    // A standing grant's use commits with the save or not at all: one transaction, the grant's row
    // locked first, then the save and its records checked in full.
    const call = async (client: PostgresClient): Promise<unknown> => {
      await takeUse(client);
      return client.query(text, values([]));
    };
    await callChecked(pool, doing, call, tables, records, refusals);
    return;
  }
  if (linkedInside(records)) {
    let alone = true;
    // A save with a budget charge skips the batches: `leash_save_runs` knows no charge, and the
    // charged save is one statement of its own (one round trip, its own commit), so it holds the
    // budget's row lock for that statement only, instead of for a whole batch of other runs' saves.
    if (batches !== undefined && !charged && batchable(rows, records)) {
      const outcome = await batches.save(rows, expectedRevision, records);
      if (outcome.state === undefined && outcome.change !== undefined) return;
      alone = fromBatch(outcome, refusals, doing);
    }
    if (alone && (await callOnce(pool, doing, text, values(records), refusals)) !== undefined) return;
  }
  await callChecked(pool, doing, (client) => client.query(text, values([])), tables, records, refusals);
}

/**
 * What a save refused inside a batch means: throws its refusal or failure, or says whether to send it
 * again alone (a deadlock of that save alone) rather than check its records in full.
 */
function fromBatch(outcome: BatchOutcome, refusals: Refusals, doing: string): boolean {
  if (outcome.state === FUNCTION_STATES.checkChain) return false;
  const error = Object.assign(new Error(`the save was refused (SQLSTATE ${outcome.state ?? "none"})`), {
    code: outcome.state,
    detail: outcome.detail,
  });
  const refused = refusal(error, refusals);
  if (refused !== undefined) throw refused;
  if (isRetryable(error)) return true;
  throw storeFailed(error, doing);
}

/**
 * A create in one statement, `leash_create_run`: the run row (refused when its id is taken, in the
 * runs or in the trail), its steps, its summary and change number, and its first records.
 */
export async function createRun(
  pool: PostgresPool,
  tables: PostgresTables,
  rows: RunRows,
  records: readonly AuditRecord[],
): Promise<void> {
  const doing = `creating run \`${rows.runId}\``;
  const text = `SELECT ${tables.createRun}($1::text, $2::bigint, $3::text, $4::integer, $5::text, $6::integer,
    $7::integer[], $8::text[], $9::text, $10::text, $11::text[], $12::bigint[], $13::text[], $14::text[], $15::text[], $16::text) AS change`;
  const values = (batch: readonly AuditRecord[]): unknown[] => [
    rows.runId,
    rows.revision,
    rows.status,
    rows.answerCount,
    rows.header,
    rows.stepCount,
    rows.indexes,
    rows.texts,
    rows.summary,
    rows.updatedKey,
    ...recordArrays(batch),
    rows.events,
  ];
  const runExists = (cause?: unknown): StateError =>
    new StateError("run_exists", `Run \`${rows.runId}\` exists already.`, {
      details: { runId: rows.runId },
      ...(cause === undefined ? {} : { cause }),
    });
  const refusals: Refusals = { runId: rows.runId, onDuplicate: runExists };
  if (linkedInside(records) && (await callOnce(pool, doing, text, values(records), refusals)) !== undefined) return;
  await callChecked(pool, doing, (client) => client.query(text, values([])), tables, records, refusals);
}
