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
