import { escapeText } from "../operate/escape-text.js";
import type { RunState } from "../state/run-state.js";
import { whyNotCounted } from "./gateway-approvers.js";
import type { GatewayApproval } from "./gateway-approvers.js";
import { MAX_ELICITATION_CHARS } from "./gateway-elicitation.js";
import type { CallResult } from "./gateway-runs.js";

/** What the answer to a waiting call says beside the run: how to reach the store, the inbox, who may approve. */
export interface WaitingView {
  /** The store options of the command line (`--db runs.db`). */
  dbArgs: string;
  /** The inbox's address (`approval.inbox`), when the config gives one. */
  inbox?: string;
  approval: GatewayApproval;
}

/** The status a waiting call's answer carries as data (`structuredContent` and `_meta`). */
export interface WaitingStatus {
  [key: string]: unknown;
  status: "awaiting_approval" | "running" | "starting";
  runId: string | null;
  digest: string | null;
  /** The run's page in the inbox, or null when the config names no inbox (`approval.inbox`). */
  inbox: string | null;
  /** Answers recorded for the request that do not count, and why. */
  notCounted?: { approver: string; via: string | null; why: string }[];
}

/** The address of a run's page in the inbox at `base`, or null without one. */
export function inboxLink(base: string | undefined, runId: string): string | null {
  if (base === undefined) return null;
  return new URL(`runs/${encodeURIComponent(runId)}`, base.endsWith("/") ? base : `${base}/`).href;
}

/** The line that says how to approve a waiting run. */
export function approveLine(state: RunState, dbArgs: string): string {
  const digest = state.pending === undefined ? "" : ` --digest ${state.pending.digest.slice(0, 16)}`;
  return `leash approve ${state.runId} --as NAME${digest} ${dbArgs}`.trim();
}

/** The answers recorded for the pending request that do not count for the gateway, and why. */
export function notCounted(state: RunState, approval: GatewayApproval): NonNullable<WaitingStatus["notCounted"]> {
  const digest = state.pending?.digest;
  return state.answers
    .filter((answer) => answer.digest === digest)
    .flatMap((answer) => {
      const why = whyNotCounted(approval, answer.approver, answer.origin);
      return why === undefined ? [] : [{ approver: answer.approver, via: answer.origin?.via ?? null, why }];
    });
}

/** The sentences that say which recorded answers do not count, each value escaped. */
export function notCountedText(items: NonNullable<WaitingStatus["notCounted"]>): string {
  return items
    .map(
      (item) =>
        ` An answer by ${escapeText(JSON.stringify(item.approver))}${item.via === null ? "" : ` (via ${escapeText(item.via)})`} was recorded but does not count: ${escapeText(item.why)}.`,
    )
    .join("");
}

/**
 * The answer of a call that stops waiting before its run ended: prose for a person, and the same as
 * data for a program: `structuredContent` (left out when the tool lists an `outputSchema`, which a
 * client checks `structuredContent` against) and `_meta`, each `{ status, runId, digest, inbox }`.
 * The run id is letters, digits and `_`: one word for a double-click or a `\w+` pattern.
 */
export function stillWaiting(
  state: RunState | undefined,
  view: WaitingView,
  options: { tooLongToAsk?: boolean; outputSchema?: boolean } = {},
): CallResult {
  const { dbArgs } = view;
  let text: string;
  let status: WaitingStatus;
  if (state === undefined) {
    text = `leash: the call was being started when this answer was sent; it may run: see \`leash runs ${dbArgs}\`.`;
    status = { status: "starting", runId: null, digest: null, inbox: null };
  } else if (state.status === "running") {
    text = `leash: the call is running in run ${state.runId}; see it with \`leash show ${state.runId} ${dbArgs}\`.`;
    status = { status: "running", runId: state.runId, digest: null, inbox: inboxLink(view.inbox, state.runId) };
  } else {
    const inbox = inboxLink(view.inbox, state.runId);
    const refused = notCounted(state, view.approval);
    const where = inbox === null ? "" : ` or in the inbox at ${inbox}`;
    const tooLong =
      options.tooLongToAsk === true
        ? ` It is not asked at the client: the whole request is longer than the ${MAX_ELICITATION_CHARS} characters a question there may take.`
        : "";
    text = `leash: the call waits for a person's approval in run ${state.runId}.${tooLong}${notCountedText(refused)} Approve it with \`${approveLine(state, dbArgs)}\`${where} (or deny it), then make the same call again: it runs once.`;
    status = {
      status: "awaiting_approval",
      runId: state.runId,
      digest: state.pending?.digest ?? null,
      inbox,
      ...(refused.length === 0 ? {} : { notCounted: refused }),
    };
  }
  return {
    content: [{ type: "text", text }],
    ...(options.outputSchema === true ? {} : { structuredContent: status }),
    _meta: { ...status },
    isError: true,
  };
}
