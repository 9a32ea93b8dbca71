import { LeashError } from "../errors/leash-error.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { RunState } from "../state/run-state.js";
import { escapeText } from "./escape-text.js";

/** A request waiting for a person, with the framework's call id of its step (a gate session's call). */
export interface WaitingRequest {
  request: ApprovalRequest;
  /** The call id the step was asked under (a gate session's `callId`), when it has one. */
  callId: string | undefined;
}

/** Which waiting request an answer is for: its step, its call id, or both (they must agree). */
export interface RequestSelector {
  step?: number;
  callId?: string;
}

/** The call id of the step a request was made at, when its decision carries one. */
function callIdOf(state: RunState, request: ApprovalRequest): string | undefined {
  const decision = state.steps[request.step]?.decision;
  return decision?.type === "act" ? decision.callId : undefined;
}

/**
 * Every request of a run that waits for a person, oldest first: a gate session's `waiting` list
 * (its status stays `running`), or the one pending request of a run awaiting approval; none otherwise.
 */
export function waitingRequests(state: RunState): WaitingRequest[] {
  let requests: ApprovalRequest[] = [];
  if (state.gate === true) {
    if (state.status === "running") requests = state.waiting ?? (state.pending === undefined ? [] : [state.pending]);
  } else if (state.status === "awaiting_approval" && state.pending !== undefined) requests = [state.pending];
  return requests.map((request) => ({ request, callId: callIdOf(state, request) }));
}

/** `step 3, call "call_9", tool pay`: how a waiting request is named where a person must pick one. */
export function requestName(waiting: WaitingRequest): string {
  const call = waiting.callId === undefined ? "" : `, call ${JSON.stringify(waiting.callId)}`;
  const { request } = waiting;
  const what = request.kind === "limit" ? `limit ${request.limit}` : `tool ${request.tool}`;
  return escapeText(`step ${request.step}${call}, ${what}`);
}

/** The option that picks a waiting request, as a person would type it: its call id, or its step when it has none. */
export function selectorText(step: number, callId: string | undefined): string {
  return callId === undefined ? `--step ${step}` : escapeText(`--call ${JSON.stringify(callId)}`);
}

/**
 * The waiting request an answer is for. With a selector, the one it names (`invalid_option` when no
 * waiting request matches, naming those that wait); without one, the only request waiting, and
 * `invalid_option` naming each when several wait, so that no answer goes to a request a person did
 * not pick. `stale_state` when nothing waits.
 */
export function selectRequest(state: RunState, selector: RequestSelector = {}): WaitingRequest {
  const waiting = waitingRequests(state);
  if (waiting.length === 0)
    throw new LeashError(
      "stale_state",
      state.gate === true
        ? `Run ${state.runId} is a gate's session (${state.status}) with no request waiting for a person: there is nothing to answer.`
        : `Run ${state.runId} is ${state.status}, not awaiting approval: there is nothing to answer.`,
    );
  const listed = waiting
    .map((item) => `${requestName(item)} (pick it with ${selectorText(item.request.step, item.callId)})`)
    .join("; ");
  if (selector.step === undefined && selector.callId === undefined) {
    if (waiting.length === 1) return waiting[0]!;
    throw new LeashError(
      "invalid_option",
      `Run ${state.runId} has ${waiting.length} requests waiting; say which one with --step N or --call CALL_ID: ${listed}.`,
    );
  }
  const match = waiting.find(
    (item) =>
      (selector.step === undefined || item.request.step === selector.step) &&
      (selector.callId === undefined || item.callId === selector.callId),
  );
  if (match !== undefined) return match;
  const asked = [
    ...(selector.step === undefined ? [] : [`step ${selector.step}`]),
    ...(selector.callId === undefined ? [] : [`call ${JSON.stringify(selector.callId)}`]),
  ].join(" and ");
  throw new LeashError(
    "invalid_option",
    `${escapeText(`No request of run ${state.runId} waiting for a person is at ${asked}`)}; these wait: ${listed}.`,
  );
}
