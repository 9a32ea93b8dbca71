// What a gate's session is given by the app's loop, and how each is checked before anything is read
// or written: a call (its id, tool, arguments and reason) and a model call to charge.
import { MAX_CALL_ID_LENGTH, MAX_REASON_LENGTH, MAX_USAGE } from "../decisions/decision.js";
import { LeashError, checkOptionKeys } from "../errors/index.js";
import { toJson } from "../json/index.js";
import type { GateCallInput } from "./gate-call.js";

/** Options of `gate.session(runId, options)`: used when the session is created, kept as first given. */
export interface GateSessionOptions {
  /** What the session is for (the run's goal); default "". */
  goal?: string;
  /** The person the session's calls run as. */
  principal?: string;
}

/** Options of `session.call`. */
export interface GateCallOptions {
  /** Why the loop makes the call: shown to the person asked to approve it. */
  reason?: string;
}

/** A model call the app's framework made, for `session.charge`. */
export interface GateCharge {
  tokens: number;
  cost: number;
  /** The model's name, kept in the `model_called` record. */
  model?: string;
}

const fail = (message: string): never => {
  throw new LeashError("invalid_option", message);
};

/** Checks a call as given by the app's loop, before anything is read or written. */
export function checkCall(callId: unknown, tool: unknown, args: unknown, options: unknown): GateCallInput {
  if (typeof callId !== "string" || callId === "" || callId.length > MAX_CALL_ID_LENGTH || !callId.isWellFormed())
    fail(`Expected the call id to be a non-empty string of at most ${MAX_CALL_ID_LENGTH} characters.`);
  if (typeof tool !== "string" || tool === "") fail("Expected the tool to be a tool's name.");
  checkOptionKeys(options, ["reason"], "session.call(..., options)");
  const reason = (options as GateCallOptions | undefined)?.reason;
  if (
    reason !== undefined &&
    (typeof reason !== "string" || reason.length > MAX_REASON_LENGTH || !reason.isWellFormed())
  )
    fail(`Expected \`reason\` to be well-formed text of at most ${MAX_REASON_LENGTH} characters.`);
  const input: GateCallInput = {
    callId: callId as string,
    tool: tool as string,
    args: toJson(args, "the arguments of the call"),
  };
  if (reason !== undefined) input.reason = reason;
  return input;
}

/** Checks a charge as given by the app, before anything is queued. */
export function checkCharge(charge: unknown): GateCharge {
  if (typeof charge !== "object" || charge === null || Array.isArray(charge))
    fail("Expected `session.charge(usage)` to be given `{ tokens, cost, model? }`.");
  checkOptionKeys(charge, ["tokens", "cost", "model"], "session.charge(usage)");
  const { tokens, cost, model } = charge as GateCharge;
  if (!Number.isSafeInteger(tokens) || tokens < 0) fail("Expected `tokens` to be a non-negative integer.");
  if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0 || cost > MAX_USAGE)
    fail(`Expected \`cost\` to be a non-negative finite number of at most ${MAX_USAGE}.`);
  if (model !== undefined && (typeof model !== "string" || model === "" || !model.isWellFormed()))
    fail("Expected `model` to be a non-empty string.");
  return model === undefined ? { tokens, cost } : { tokens, cost, model };
}
