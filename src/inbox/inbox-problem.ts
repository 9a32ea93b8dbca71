import { isLeashError } from "../errors/leash-error.js";
import { isOperationalCode } from "../operate/operational-codes.js";

/** An error as the inbox answers it: an HTTP status, a code and a message fit to show a person. */
export interface InboxProblem {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503;
  code: string;
  message: string;
}

const STATUS_OF: Readonly<Record<string, InboxProblem["status"]>> = {
  invalid_option: 400,
  invalid_answer: 400,
  invalid_arguments: 400,
  not_json: 400,
  unauthorized: 401,
  csrf_refused: 403,
  approver_not_allowed: 403,
  role_refused: 403,
  run_not_found: 404,
  grant_not_found: 404,
  approver_not_found: 404,
  stale_state: 409,
};

/** What a person reads when the request they reviewed is no longer the one the run waits on. */
const STALE_MESSAGE =
  "This request changed (or was answered) since the page showed it, so your answer was not recorded. Read the request again before you answer.";

function answeredAlready(error: unknown): boolean {
  return isLeashError(error) && error.details.answered === true;
}

/**
 * The problem an error stands for. The inbox's own refusals and leash's errors keep their code; a
 * store that cannot be reached is 503; anything else is 500 without its message, which might name
 * internals.
 */
export function inboxProblem(error: unknown): InboxProblem {
  if (isLeashError(error)) {
    const code = error.code;
    // An answer refused because the approver answered already says so; any other stale answer gets
    // the one message that tells a person to read the request again.
    if (code === "stale_state")
      return { status: 409, code, message: answeredAlready(error) ? error.message : STALE_MESSAGE };
    const status = STATUS_OF[code];
    if (status !== undefined) return { status, code, message: error.message };
    if (isOperationalCode(code)) return { status: 503, code, message: error.message };
  }
  return {
    status: 500,
    code: "internal_error",
    message: "The inbox failed to answer this request; see the server's log.",
  };
}
