import { assertNever } from "../../errors/index.js";
import type { GateCallAnswerLike } from "./gate-session-like.js";

/**
 * What the model is told of a call the gate did not run, as the tool's result: a line that begins
 * with the outcome (`not approved`, `effect_denied`, `stopped`, ...) and says why. A call that ran
 * gives its result itself, and this is not asked.
 */
export function gateAnswerText(answer: Exclude<GateCallAnswerLike, { status: "executed" }>): string {
  switch (answer.status) {
    case "refused":
      return `${answer.outcome}: ${answer.message}`;
    case "awaiting_approval":
      // An approval in the conversation authorises nothing: only a person's answer recorded in leash does.
      return (
        `not approved: no person has approved this call of \`${answer.request.tool}\` in leash ` +
        `(request ${answer.request.digest}); it did not run and waits for an answer there.`
      );
    case "stopped":
      return `stopped: the session's run has ended (${answer.reason}); this call did not run, and no further call will.`;
    case "failed":
      return `failed: ${answer.failure.code}: ${answer.failure.message}`;
    default:
      return assertNever(answer);
  }
}

/** What a model is told of a call a person edited when approving it. */
const EDITED_NOTE =
  "A person changed the arguments of this call when approving it: it was taken with the arguments below, not the ones you proposed.";

/**
 * An executed call's output as the adapter hands it to the framework: the result as it is, or, for
 * a call a person edited when approving it, the result beside what was changed, by whom and to what
 * (as leash's own conversation tells a model).
 */
export function executedOutput(answer: Extract<GateCallAnswerLike, { status: "executed" }>): unknown {
  if (answer.edited === undefined) return answer.result;
  return {
    arguments_edited: { args: answer.edited.args, by: answer.edited.by, note: EDITED_NOTE },
    result: answer.result,
  };
}
