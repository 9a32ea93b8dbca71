import { isLeashError } from "../errors/leash-error.js";

/** A stored run whose state cannot be read, as `leash runs` names it. */
export interface UnreadableSummary {
  runId: string;
  code: string;
  message: string;
}

/** Why a run cannot be read, as one line's worth of code and message, whatever the store threw. */
export function unreadableSummary(runId: string, error: unknown): UnreadableSummary {
  const code = isLeashError(error) ? error.code : "invalid_state";
  let message: string;
  try {
    message = error instanceof Error ? String(error.message) : String(error);
  } catch {
    message = "its state cannot be read";
  }
  return { runId, code, message };
}
