import { StateError, messageOf } from "../errors/index.js";
import { isDigest, isJson, isJsonObject, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import { turnProblem } from "../decisions/decision.js";
import { EFFECTS } from "../tools/tool.js";
import { BUDGET_STOP_REASONS, checkLimits, RAISABLE_LIMITS, STOP_REASONS } from "../limits/limits.js";
import { FAILURE_CODES } from "../errors/index.js";
import { OUTCOMES, RUN_STATUSES } from "./outcomes.js";
import type { RunStateJson } from "./saved-run-state.js";

type Check = (value: unknown, path: string) => void;

class Invalid extends Error {}

function fail(path: string, expected: string): never {
  throw new Invalid(`\`${path}\` must be ${expected}`);
}

const string: Check = (value, path) => (typeof value === "string" ? undefined : fail(path, "a string"));
const json: Check = (value, path) => {
  if (isJson(value)) return;
  // Say why (nested deeper than MAX_JSON_DEPTH, a lone surrogate, ...), not only that it is not JSON.
  let why = "";
  try {
    toJson(value);
  } catch (error) {
    why = ` (${messageOf(error).replace(/\.$/, "")})`;
  }
  fail(path, `JSON${why}`);
};
const count: Check = (value, path) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : fail(path, "a non-negative integer");
const amount: Check = (value, path) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? undefined : fail(path, "a number >= 0");
const oneOf =
  (values: readonly string[]): Check =>
  (value, path) =>
    typeof value === "string" && values.includes(value) ? undefined : fail(path, `one of ${values.join(", ")}`);
const arrayOf =
  (item: Check): Check =>
  (value, path) => {
    if (!Array.isArray(value)) fail(path, "an array");
    value.forEach((element, index) => item(element, `${path}[${index}]`));
  };
const digest: Check = (value, path) => (isDigest(value) ? undefined : fail(path, "64 lowercase hex digits"));

/** An object with exactly these keys (`?` marks optional ones): anything else, `__proto__` included, is refused. */
function shape(fields: Record<string, Check>): Check {
  const required = Object.keys(fields).filter((key) => !key.endsWith("?"));
  const checks = new Map(Object.entries(fields).map(([key, check]) => [key.replace(/\?$/, ""), check]));
  return (value, path) => {
    if (!isJsonObject(value) || Object.getPrototypeOf(value) !== Object.prototype) fail(path, "an object");
    for (const key of Object.keys(value)) {
      const check = checks.get(key);
      if (check === undefined) throw new Invalid(`\`${path}\` has an unknown key \`${key}\``);
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) check(item, `${path}.${key}`);
    }
    for (const key of required) {
      if ((value as Record<string, unknown>)[key] === undefined) throw new Invalid(`\`${path}.${key}\` is missing`);
    }
  };
}

const usage = shape({ tokens: amount, cost: amount });
const boolean: Check = (value, path) => (typeof value === "boolean" ? undefined : fail(path, "a boolean"));
const finite: Check = (value, path) =>
  typeof value === "number" && Number.isFinite(value) ? undefined : fail(path, "a finite number");
const approval = shape({
  digest,
  granted: boolean,
  approver: string,
  "note?": string,
  "raiseTo?": finite,
  "args?": json,
});
// Where an answer came from: `via`, and more string fields (the channel's own: user, host, client...);
// a standing grant's use (`{ via: "grant", grant, use }`) numbers the use, a count.
const origin: Check = (value, path) => {
  if (!isJsonObject(value) || Object.getPrototypeOf(value) !== Object.prototype) fail(path, "an object");
  const via = (value as Record<string, unknown>).via;
  string(via, `${path}.via`);
  for (const [key, item] of Object.entries(value)) {
    if (key === "__proto__") throw new Invalid(`\`${path}\` has an unknown key \`${key}\``);
    if (via === "grant" && key === "use") count(item, `${path}.${key}`);
    else string(item, `${path}.${key}`);
  }
};
// An answer recorded out of process: an approval, where it came from, and whether it is audited.
const recordedAnswer = shape({
  digest,
  granted: boolean,
  approver: string,
  "note?": string,
  "raiseTo?": finite,
  "args?": json,
  "origin?": origin,
  "audited?": boolean,
});
const turn: Check = (value, path) => {
  if (!isJson(value, { maxDepth: MAX_RECORD_DEPTH })) json(value, path);
  const problem = turnProblem(value as Json);
  if (problem !== undefined) throw new Invalid(`\`${path}\`: ${problem.replace("`turn", "`")}`);
};
const truth: Check = (value, path) => (value === true ? undefined : fail(path, "true"));
const decision: Check = (value, path) => {
  if (isJsonObject(value) && value.type === "act") {
    shape({
      type: string,
      tool: string,
      args: json,
      "reason?": string,
      "usage?": usage,
      "callId?": string,
      "invalidJson?": truth,
      "turn?": turn,
    })(value, path);
  } else if (isJsonObject(value) && value.type === "finish") {
    shape({ type: string, answer: json, "usage?": usage, "callId?": string, "turn?": turn })(value, path);
  } else fail(path, 'a decision of type "act" or "finish"');
};
const step = shape({
  index: count,
  decision,
  outcome: (value, path) => (value === null ? undefined : oneOf(OUTCOMES)(value, path)),
  result: json,
  "error?": shape({ code: string, message: string }),
  "approval?": approval,
  "starts?": count,
  "idempotencyKey?": string,
  "openAtRequest?": arrayOf(count),
  "edited?": shape({ args: json, by: string }),
  "argsSchema?": json,
});
const callRequest = shape({
  kind: (value, path) => (value === "call" ? undefined : fail(path, '"call"')),
  runId: string,
  step: count,
  tool: string,
  args: json,
  effect: oneOf(EFFECTS),
  scopes: arrayOf(string),
  "reason?": string,
  digest,
  requestedAt: string,
  "quorum?": count,
  "grantedBy?": arrayOf(string),
});
const limitRequest = shape({
  kind: string,
  runId: string,
  step: count,
  limit: oneOf([...Object.keys(RAISABLE_LIMITS), ...BUDGET_STOP_REASONS]),
  used: amount,
  allowed: amount,
  digest,
  requestedAt: string,
});
// A request of either kind; a version-1 form's requests were all calls, and are given their kind first.
const request: Check = (value, path) =>
  isJsonObject(value) && value.kind === "limit" ? limitRequest(value, path) : callRequest(value, path);
const limits: Check = (value, path) => {
  try {
    checkLimits(value, path);
  } catch (error) {
    throw new Invalid((error as Error).message);
  }
};

const state = shape({
  format: (value, path) => (value === "leash.run-state" ? undefined : fail(path, '"leash.run-state"')),
  version: count,
  runId: string,
  agent: string,
  goal: string,
  status: oneOf(RUN_STATUSES),
  "stopReason?": oneOf(STOP_REASONS),
  "failure?": shape({ code: oneOf(FAILURE_CODES), message: string }),
  "answer?": json,
  steps: arrayOf(step),
  "pending?": request,
  "pendingHistory?": digest,
  "gate?": (value, path) => (value === true ? undefined : fail(path, "true")),
  "waiting?": arrayOf(callRequest),
  answers: arrayOf(recordedAnswer),
  usage,
  toolCalls: count,
  revision: count,
  auditHead: (value, path) => (value === null ? undefined : shape({ seq: count, digest })(value, path)),
  attempt: count,
  "retryOf?": string,
  "principal?": string,
  "skill?": string,
  "budget?": string,
  "sponsor?": string,
  "gaveUp?": shape({ attempts: count, problem: string }),
  nonce: string,
  rejections: count,
  elapsedMs: amount,
  said: arrayOf(string),
  ran: arrayOf(string),
  limits,
  createdAt: string,
  updatedAt: string,
});

/**
 * Parses and checks the saved form of a run state, never casting: text is parsed first, the format
 * version is checked before anything else, and then every field. Returns a fresh copy.
 */
export function parseRunState(input: unknown): RunStateJson {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new StateError("invalid_state", `The saved run state is not JSON: ${(error as Error).message}`);
    }
  }
  if (!isJsonObject(value)) throw new StateError("invalid_state", "The saved run state must be a JSON object.");
  const version = (value as Record<string, unknown>).version;
  if (version !== 1 && version !== 2) {
    throw new StateError(
      "unsupported_version",
      `The saved run state has format version ${JSON.stringify(version) ?? "undefined"}; this leash reads version 1. ` +
        "A state saved by a newer leash must be resumed by that version.",
      { details: { version: isJson(version) ? version : null } },
    );
  }
  // A version-1 form is upgraded on a copy, then checked as version 2 is.
  const subject = version === 1 ? upgradeFromVersion1(structuredClone(value)) : value;
  try {
    state(subject, "state");
  } catch (error) {
    if (error instanceof Invalid)
      throw new StateError("invalid_state", `The saved run state is invalid: ${error.message}.`);
    throw error;
  }
  return structuredClone(subject) as unknown as RunStateJson;
}

/**
 * Reads a version-1 form as version 2: every request it holds (the pending one, a gate's waiting ones)
 * is a call's, which version 2 says with `kind: "call"`. A request that is not an object is left for
 * the check to refuse.
 */
function upgradeFromVersion1(value: Record<string, unknown>): Record<string, unknown> {
  const withKind = (item: unknown): unknown =>
    isJsonObject(item) && !Object.hasOwn(item, "kind") ? { kind: "call", ...item } : item;
  if (value.pending !== undefined) value.pending = withKind(value.pending);
  if (Array.isArray(value.waiting)) value.waiting = value.waiting.map(withKind);
  value.version = 2;
  return value;
}
