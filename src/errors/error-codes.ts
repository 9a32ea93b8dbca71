/**
 * Why a run failed: the `failure.code` of a failed `RunState`, and also the codes of the errors
 * `ctx.callModel` throws when a guard blocks or a model fails. The one list of them: the saved form's
 * parser, the `FailureCode` type and {@link ERROR_CODES} are all read from it.
 */
export const FAILURE_CODES = [
  "planner_failed",
  "invalid_decision",
  "done_failed",
  "answer_rejected",
  "model_blocked",
  "model_failed",
  "guard_failed",
  "policy_failed",
  "internal_error",
] as const;

/** Why a run failed: one of {@link FAILURE_CODES}. */
export type FailureCode = (typeof FAILURE_CODES)[number];

/**
 * Every code a {@link LeashError} can carry. The list is closed: codes are stored in audit records
 * and compared across versions, so a code is only ever added here, never invented at a throw site.
 */
export const ERROR_CODES = [
  // Construction and options.
  "invalid_tool",
  "invalid_option",
  "invalid_skill",
  "not_json",
  // Run and resume refusals (thrown as StateError).
  "run_exists",
  "run_not_found",
  "run_ended",
  "stale_state",
  "already_resumed",
  "audit_truncated",
  "approver_not_allowed",
  "approver_check_failed",
  // An answer that does not fit its request (a raise not above what was used, a raise of a call).
  "invalid_answer",
  "invalid_state",
  "unsupported_version",
  // A gate's session: a call id given again with another tool or other arguments.
  "call_mismatch",
  // An approval's edit whose arguments the tool refuses (given to a resume, or on the command line).
  "invalid_arguments",
  // The audit trail.
  "audit_torn",
  "audit_corrupt",
  "audit_failed",
  "audit_not_found",
  // Failures of a run (the `failure.code` of a failed RunState).
  ...FAILURE_CODES,
  "limit_reached",
  // Testing helpers.
  "script_exhausted",
  "script_unfinished",
  // Stores.
  "store_failed",
  "store_busy",
  // Standing grants (store.grant): an id the store does not hold.
  "grant_not_found",
  // Shared budgets (store.resetBudget): a key the store holds no budget for.
  "budget_not_found",
  // MCP servers (leash/mcp).
  "mcp_failed",
  "mcp_unavailable",
  // Evidence: signed notes, keys and checkpoints.
  "invalid_key",
  "malformed_note",
  "unknown_key",
  "bad_signature",
  "malformed_checkpoint",
  "root_mismatch",
  "audit_invalid",
  // Witnesses (C2SP tlog-witness).
  "witness_refused",
  "witness_unavailable",
  // Operating leash: a store named by its location, an app's agent module, a gateway's config, the
  // approvers of the inbox (what the command line, `leash serve` and `leash mcp serve` share).
  "db_not_found",
  "db_unreadable",
  "not_a_database",
  "pg_not_installed",
  "agent_not_found",
  "agent_load_failed",
  "invalid_agent_module",
  "tsx_not_installed",
  "invalid_config",
  "approver_exists",
  // The roles of the inbox's people: a person whose roles do not let them answer a request (or who is
  // no person of the registry) is refused, and nothing is recorded.
  "role_refused",
] as const;

/** A code of a {@link LeashError}: a snake_case wire value. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const known: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether a string is one of {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && known.has(value);
}
