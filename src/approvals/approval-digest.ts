import { digestOfJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { Effect } from "../tools/tool.js";

/** The parts of a run's history that an approval is bound to. */
interface HistoryInput {
  runId: string;
  nonce: string;
  goal: Json;
  principal: string | null;
  steps: readonly { decision: Json; outcome: string | null; result: Json; error: Json }[];
}

/**
 * The digest of a run's history up to a request: its nonce (so no two runs share a history), goal,
 * principal and every earlier step's decision, outcome, result and error.
 */
export function historyDigest(history: HistoryInput): string {
  // A versioned domain tag first, and an array rather than joined strings: a digest made for one
  // purpose can never be replayed as another's, and no field's text can forge a boundary.
  return digestOfJson([
    "leash.history/1",
    history.runId,
    history.nonce,
    history.goal,
    history.principal,
    history.steps.map((step) => [step.decision, step.outcome, step.result, step.error]),
  ]);
}

/** The exact action an approval authorises. */
interface ActionInput {
  runId: string;
  step: number;
  tool: string;
  args: Json;
  effect: Effect;
  scopes: readonly string[];
  historyDigest: string;
  /** The tool's definition where it comes from (an MCP server); part of the digest only when present. */
  definition?: Json;
}

/**
 * The digest an approval is bound to: SHA-256 over the RFC 8785 canonical JSON of the exact action
 * (run, step, tool, arguments, effect, scopes) and of the history digest, and of the tool's
 * definition when it has one (a tool from an MCP server), so digests of other tools never change.
 */
export function approvalDigest(action: ActionInput): string {
  const parts: Json[] = [
    "leash.approval/1",
    action.runId,
    action.step,
    action.tool,
    action.args,
    action.effect,
    [...action.scopes],
    action.historyDigest,
  ];
  if (action.definition !== undefined) parts.push(action.definition);
  return digestOfJson(parts);
}

/** The limit request a raise is bound to. */
interface LimitInput {
  runId: string;
  step: number;
  limit: string;
  used: number;
  allowed: number;
  historyDigest: string;
}

/**
 * The digest a raise of a limit is bound to: SHA-256 over the RFC 8785 canonical JSON of the limit,
 * what was used, what was allowed, where the run stood and its history, so a raise answers that
 * request only, and never a call's.
 */
export function limitDigest(request: LimitInput): string {
  // Its own domain tag: a limit request's digest can never be taken for an action's.
  return digestOfJson([
    "leash.limit/1",
    request.runId,
    request.step,
    request.limit,
    request.used,
    request.allowed,
    request.historyDigest,
  ]);
}
