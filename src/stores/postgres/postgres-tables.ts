import { LeashError } from "../../errors/index.js";

/** The longest identifier PostgreSQL keeps whole; a longer one is cut silently, so two schemas could merge. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * Quotes an identifier for SQL text: doubled quotes inside, quotes around. Schema names come from
 * options, so they are never pasted into SQL unquoted.
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Quotes a string as an SQL literal that reads the same whatever `standard_conforming_strings` is:
 * an `E''` string, with backslashes and quotes doubled. For names pasted into function bodies.
 */
export function quoteLiteral(text: string): string {
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** The fully qualified, quoted names of the store's tables in one schema. */
export interface PostgresTables {
  /** The schema's name, unquoted, as given. */
  schema: string;
  /** `"schema"`. */
  quotedSchema: string;
  /** `"schema".leash_runs`: one row per run, its saved state without its steps, and its lease. */
  runs: string;
  /** `"schema".leash_steps`: one row per step of a run, keyed on (run_id, step_index). */
  steps: string;
  /** `"schema".leash_audit`: one row per audit record, keyed on (run_id, seq). */
  audit: string;
  /** `"schema".leash_meta`: the schema version. */
  meta: string;
  /** `"schema".leash_log_nodes`: the complete subtrees of the store's Merkle log, keyed on (level, idx). */
  logNodes: string;
  /** `"schema".leash_checkpoints`: the signed checkpoints of the log, whole notes with every signature. */
  checkpoints: string;
  /** `"schema".leash_grants`: the standing grants, one row each, in the order given. */
  grants: string;
  /** `"schema".leash_budgets`: the shared budgets, one row per key, with their limits and spend. */
  budgets: string;
  /** `"schema".leash_change_seq`: the store's change sequence, bumped by every create, save and answer. */
  changes: string;
  /** `"schema".leash_save_run`: the function that does a whole save in one call (see `postgres-functions.ts`). */
  saveRun: string;
  /** `"schema".leash_save_runs`: several saves in one call, each its own all-or-nothing. */
  saveRuns: string;
  /** `"schema".leash_create_run`: the function that does a whole create in one call. */
  createRun: string;
  /** `"schema".leash_append_records`: the function that checks the chain heads and inserts records. */
  appendRecords: string;
  /** `"schema".leash_change_sequence`: the function that reads the change sequence once every lower change committed. */
  changeSequence: string;
  /** `"schema".leash_charge_budget`: the function that checks and takes one charge from a budget (see `postgres-budget-functions.ts`). */
  chargeBudget: string;
  /** `"schema".leash_save_run_charged`: a whole save and its budget charge in one call. */
  saveRunCharged: string;
  /** `"schema".leash_outbox`: the notification outbox, one row per event (API.md section 19). */
  outbox: string;
  /** `"schema".leash_outbox_add`: the function that inserts a save's events, each unless there already. */
  addEvents: string;
}

/**
 * Checks a schema name and gives the quoted names of the tables in it. The tables carry a `leash_`
 * prefix because the default schema, `public`, is shared with the application's own tables.
 */
export function postgresTables(schema: string): PostgresTables {
  if (
    typeof schema !== "string" ||
    schema.length === 0 ||
    schema.includes("\0") ||
    Buffer.byteLength(schema, "utf8") > MAX_IDENTIFIER_BYTES
  ) {
    throw new LeashError(
      "invalid_option",
      `Expected \`schema\` to be a PostgreSQL schema name of 1 to ${MAX_IDENTIFIER_BYTES} bytes without NUL.`,
      {
        details: { schema: typeof schema === "string" ? schema : String(schema) },
      },
    );
  }
  const quotedSchema = quoteIdentifier(schema);
  return {
    schema,
    quotedSchema,
    runs: `${quotedSchema}.leash_runs`,
    steps: `${quotedSchema}.leash_steps`,
    audit: `${quotedSchema}.leash_audit`,
    meta: `${quotedSchema}.leash_meta`,
    logNodes: `${quotedSchema}.leash_log_nodes`,
    checkpoints: `${quotedSchema}.leash_checkpoints`,
    grants: `${quotedSchema}.leash_grants`,
    budgets: `${quotedSchema}.leash_budgets`,
    changes: `${quotedSchema}.leash_change_seq`,
    saveRun: `${quotedSchema}.leash_save_run`,
    saveRuns: `${quotedSchema}.leash_save_runs`,
    createRun: `${quotedSchema}.leash_create_run`,
    appendRecords: `${quotedSchema}.leash_append_records`,
    changeSequence: `${quotedSchema}.leash_change_sequence`,
    chargeBudget: `${quotedSchema}.leash_charge_budget`,
    saveRunCharged: `${quotedSchema}.leash_save_run_charged`,
    outbox: `${quotedSchema}.leash_outbox`,
    addEvents: `${quotedSchema}.leash_outbox_add`,
  };
}
