/** Where a run stands. */
export type RunStatus = "running" | "awaiting_approval" | "completed" | "stopped" | "failed";

/** Every run status. */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "awaiting_approval", "completed", "stopped", "failed"];

/** The statuses of a run that has ended and can never be resumed. */
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(["completed", "stopped", "failed"]);

/** How a step ended (`null` while it awaits approval or its tool call is in flight). */
export type Outcome =
  | "executed"
  | "finished"
  | "stopped"
  | "unknown_tool"
  | "invalid_arguments"
  | "effect_denied"
  | "scope_denied"
  | "blocked"
  | "withheld"
  | "approval_denied"
  | "approval_stale"
  | "tool_error"
  | "timed_out"
  | "interrupted"
  | "answer_rejected";

/** Every step outcome. */
export const OUTCOMES: readonly Outcome[] = [
  "executed",
  "finished",
  "stopped",
  "unknown_tool",
  "invalid_arguments",
  "effect_denied",
  "scope_denied",
  "blocked",
  "withheld",
  "approval_denied",
  "approval_stale",
  "tool_error",
  "timed_out",
  "interrupted",
  "answer_rejected",
];
