import type { StoreLocation } from "../operate/store-location.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import { whyNotCounted } from "./gateway-approvers.js";
import type { GatewayApproval } from "./gateway-approvers.js";
import { isGatewayRunId } from "./gateway-runs.js";

/** A kept approval record, checked: anything else (a table of another version, an edit) counts as none. */
function parsed(json: unknown): GatewayApproval | undefined {
  if (typeof json !== "string") return undefined;
  try {
    const value = JSON.parse(json) as Record<string, unknown>;
    const approvers = value.approvers;
    if (typeof value.elicitationApproves !== "boolean") return undefined;
    if (approvers !== undefined && !(Array.isArray(approvers) && approvers.every((item) => typeof item === "string")))
      return undefined;
    return {
      ...(approvers === undefined ? {} : { approvers: approvers }),
      elicitationApproves: value.elicitationApproves,
    };
  } catch {
    return undefined;
  }
}

/**
 * Who may approve a run of `leash mcp serve`, as its gateway kept it beside the run when it started it
 * (table `leash_gateway_approvals`), or `undefined` when no gateway kept it (an older gateway's run,
 * or a store no gateway served). Reads only: a store without the table is left as it is.
 */
export async function readGatewayApproval(
  location: StoreLocation,
  runId: string,
): Promise<GatewayApproval | undefined> {
  if (location.kind === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(location.db, { readonly: true, fileMustExist: true });
    try {
      const table = db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leash_gateway_approvals'")
        .get();
      if (table === undefined) return undefined;
      const row = db.prepare("SELECT approval FROM leash_gateway_approvals WHERE run_id = ?").get(runId) as
        { approval: string } | undefined;
      return parsed(row?.approval);
    } finally {
      db.close();
    }
  }
  const { openPool, DEFAULT_POSTGRES_TIMEOUTS } = await import("../stores/postgres/open-pool.js");
  const { quoteIdentifier } = await import("../stores/postgres/postgres-tables.js");
  const pool = openPool(location.db, DEFAULT_POSTGRES_TIMEOUTS);
  try {
    const table = `${quoteIdentifier(location.schema)}.leash_gateway_approvals`;
    const { rows } = await pool.query("SELECT to_regclass($1) IS NOT NULL AS present", [table]);
    if (rows[0]?.present !== true) return undefined;
    const found = await pool.query(`SELECT approval FROM ${table} WHERE run_id = $1`, [runId]);
    return parsed(found.rows[0]?.approval);
  } finally {
    await pool.end();
  }
}

/**
 * Whether the gateway that started a run will count an answer by `approver` given through `origin`
 * (see `whyNotCounted`): `null` when it will, why not when it will not, and `undefined` when this
 * cannot be told here (the run is no gateway's, or its gateway kept no record of who may approve).
 */
export async function whyGatewayWillNotCount(
  location: StoreLocation,
  runId: string,
  approver: string,
  origin: AnswerOrigin | undefined,
): Promise<string | null | undefined> {
  if (!isGatewayRunId(runId)) return undefined;
  let approval: GatewayApproval | undefined;
  try {
    approval = await readGatewayApproval(location, runId);
  } catch {
    // The answer is recorded already: a record that cannot be read now only leaves the note out.
    return undefined;
  }
  return approval === undefined ? undefined : (whyNotCounted(approval, approver, origin) ?? null);
}
