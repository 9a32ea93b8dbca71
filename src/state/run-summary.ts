import { LeashError } from "../errors/index.js";
import type { RunState } from "./run-state.js";
import type { RunStatus } from "./outcomes.js";
import type { StopReason } from "../limits/limits.js";

/** How many characters of a goal a summary keeps; the run's state keeps it whole. */
export const SUMMARY_GOAL_LENGTH = 200;

/**
 * What a listing shows of one run, kept by the store beside the run on every save and answer, so that
 * a listing reads summaries from an index instead of reading (and parsing) every run's state.
 */
export interface RunSummary {
  runId: string;
  agent: string;
  status: RunStatus;
  /** The goal's first {@link SUMMARY_GOAL_LENGTH} characters (never half a surrogate pair), `…` added when cut. */
  goal: string;
  /** Whether `goal` was cut. */
  goalShortened: boolean;
  skill: string | undefined;
  principal: string | undefined;
  /** The person the run's work is for (API.md section 19), when its agent names one. */
  sponsor: string | undefined;
  attempt: number;
  retryOf: string | undefined;
  /** How many steps the run has. */
  steps: number;
  toolCalls: number;
  /** How many steps are `interrupted`: whether each call took effect is for a person to check. */
  interruptedSteps: number;
  /** The tool of the pending request (a gate session's oldest waiting request), when one waits. */
  pendingTool: string | undefined;
  /** The digest of the pending request (a gate session's oldest waiting request), when one waits. */
  pendingDigest: string | undefined;
  /** The quorum of the pending request, when its policy asks for more than one approver. */
  pendingQuorum: number | undefined;
  /**
   * Under such a quorum, how many distinct approvers' grants of the pending request are recorded so
   * far (the store cannot judge the policy, so every grant recorded counts here).
   */
  pendingGranted: number | undefined;
  /** Whether the run is a gate's session (`Gate`): driven by another framework's loop, `running` between calls. */
  gate: boolean;
  /**
   * How many requests wait for a person: a gate session's waiting requests (its status stays
   * `running`), 1 for a run awaiting approval, else 0. A run with one or more is awaiting a person.
   */
  waiting: number;
  /** How many answers are recorded for the run. */
  answers: number;
  stopReason: StopReason | undefined;
  /** The failure's code, for a failed run. */
  failureCode: string | undefined;
  /** What the run spent so far (tool and model cost). */
  cost: number;
  createdAt: string;
  updatedAt: string;
  revision: number;
  /**
   * The store's change sequence at this run's last change (create, save or answer): a store-wide
   * counter that only grows, so `summaries({ changedSince })` finds what moved since a poll.
   */
  change: number;
}

/** The orders a listing can be read in. `created_asc` (the oldest run first) is the default. */
export type RunOrder = "created_asc" | "created_desc" | "updated_desc";

/** The orders of {@link RunOrder}, for checking. */
export const RUN_ORDERS: readonly RunOrder[] = ["created_asc", "created_desc", "updated_desc"];

/** The largest `limit` a listing takes. */
export const MAX_LIST_LIMIT = 10_000;

/** One page of summaries. */
export interface SummaryPage {
  runs: RunSummary[];
  /** The cursor of the next page (pass it as `cursor` with the same order and filters), or `undefined` at the end. */
  next: string | undefined;
}

/** The goal as a summary keeps it: its first {@link SUMMARY_GOAL_LENGTH} characters and `…` when longer. */
export function summaryGoal(goal: string): { goal: string; goalShortened: boolean } {
  if (goal.length <= SUMMARY_GOAL_LENGTH) return { goal, goalShortened: false };
  let cut = goal.slice(0, SUMMARY_GOAL_LENGTH);
  // Never half of a character outside the basic plane.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return { goal: `${cut}…`, goalShortened: true };
}

/** How many requests of a run wait for a person (see {@link RunSummary.waiting}). */
function waitingCount(state: RunState): number {
  if (state.gate === true) return state.status === "running" ? (state.waiting?.length ?? 0) : 0;
  return state.status === "awaiting_approval" && state.pending !== undefined ? 1 : 0;
}

/**
 * Whether a run awaits a person (what `list({ awaitingPerson: true })` lists): paused for approval,
 * or a gate session (status `running`) with a request waiting.
 */
export function isAwaitingPerson(run: Pick<RunSummary, "status" | "waiting">): boolean {
  return run.status === "awaiting_approval" || (run.status === "running" && run.waiting > 0);
}

/** The quorum of a waiting request above one, and the distinct granters recorded for it so far. */
function quorumFields(
  state: RunState,
  request: RunState["pending"],
): { pendingQuorum: number | undefined; pendingGranted: number | undefined } {
  const quorum = request?.kind === "call" ? request.quorum : undefined;
  if (request === undefined || request.kind !== "call" || quorum === undefined || quorum <= 1)
    return { pendingQuorum: undefined, pendingGranted: undefined };
  const granters = new Set(request.grantedBy ?? []);
  for (const answer of state.answers)
    if (answer.digest === request.digest && answer.granted) granters.add(answer.approver);
  return { pendingQuorum: quorum, pendingGranted: granters.size };
}

/** The summary of a state, as a store keeps it; `change` is the store's change sequence at this save. */
export function summaryOf(state: RunState, change: number): RunSummary {
  const oldest = state.gate === true ? (state.waiting?.[0] ?? state.pending) : state.pending;
  return {
    runId: state.runId,
    agent: state.agent,
    status: state.status,
    ...summaryGoal(state.goal),
    skill: state.skill,
    principal: state.principal,
    sponsor: state.sponsor,
    attempt: state.attempt,
    retryOf: state.retryOf,
    steps: state.steps.length,
    toolCalls: state.toolCalls,
    interruptedSteps: state.steps.filter((step) => step.outcome === "interrupted").length,
    pendingTool: oldest?.kind === "call" ? oldest.tool : undefined,
    pendingDigest: oldest?.digest,
    ...quorumFields(state, oldest),
    gate: state.gate === true,
    waiting: waitingCount(state),
    answers: state.answers.length,
    stopReason: state.stopReason,
    failureCode: state.failure?.code,
    cost: state.usage.cost,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    revision: state.revision,
    change,
  };
}

/**
 * The JSON of a state's summary without its `change` (the transaction of the write gives that), as
 * the SQL stores' `summary` column holds it.
 */
export function summaryText(state: RunState): string {
  const { change: _change, ...rest } = summaryOf(state, 0);
  return JSON.stringify(rest);
}

/** Where a page starts: after the run with this sort key, in this order. */
export interface CursorPosition {
  order: RunOrder;
  /** The run's id, the tie-break of every order. */
  runId: string;
  /** The run's sort key in `order`: its `createdAt` or its `updatedAt`. */
  key: string;
}

/**
 * The cursor that starts a page right after `run` in `order`: what a page's `next` is, and what a
 * caller of `list({ limit })` passes to read on after the last state it got.
 */
export function cursorAfter(
  run: Pick<RunSummary, "runId" | "createdAt" | "updatedAt">,
  order: RunOrder = "created_asc",
): string {
  const key = order === "updated_desc" ? run.updatedAt : run.createdAt;
  return Buffer.from(JSON.stringify([order, key, run.runId]), "utf8").toString("base64url");
}

/** Reads a cursor made by {@link cursorAfter}, refusing (`invalid_option`) one that is not, or that was made for another order. */
export function readCursor(cursor: string, order: RunOrder): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !parsed.every((part) => typeof part === "string") ||
    !RUN_ORDERS.includes(parsed[0] as RunOrder) ||
    // No stored id or time holds a NUL or half a surrogate pair (PostgreSQL's text cannot hold the
    // first): such a part is a forged cursor, refused here rather than sent to the database.
    parsed.some((part: string) => part.includes("\u0000") || !part.isWellFormed())
  )
    throw new LeashError("invalid_option", "Expected `cursor` to be the `next` of a page, or made by cursorAfter().");
  if (parsed[0] !== order)
    throw new LeashError("invalid_option", `The cursor was made for order \`${String(parsed[0])}\`, not \`${order}\`.`);
  return { order, key: parsed[1] as string, runId: parsed[2] as string };
}
