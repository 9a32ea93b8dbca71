import { LeashError } from "../../errors/index.js";
import type { GateSessionLike } from "../common/gate-session-like.js";

const ENDED = new Set(["completed", "stopped", "failed"]);

/**
 * A `stopWhen` condition of the AI SDK's loop that holds once the session's run has ended: a charge
 * past `maxCost` or `maxTokens` (see `chargeUsage`), a limit reached by a call, a guard that failed.
 * Without it the SDK asks the model once more after such a stop, and only the tool calls are refused.
 *
 * @example
 * await generateText({ model, tools, messages, onStepFinish: chargeUsage(session, { price }), stopWhen: [stepCountIs(10), gateEnded(session)] });
 */
export function gateEnded(session: GateSessionLike): () => boolean {
  if (typeof session !== "object" || session === null || !("state" in session)) {
    throw new LeashError("invalid_option", "gateEnded: expected a gate's session, which has `state`.");
  }
  return () => ENDED.has(session.state?.status ?? "");
}
