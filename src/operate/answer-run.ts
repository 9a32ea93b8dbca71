import { Approval } from "../approvals/approval.js";
import { LeashError } from "../errors/leash-error.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { Json } from "../json/json-value.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "../stores/run-store.js";
import { approvalCount } from "./approval-count.js";
import { cliOrigin } from "./answer-origin.js";
import type { AnswerOrigin } from "./answer-origin.js";
import type { StoreLocation } from "./store-location.js";
import { findRun } from "./find-run.js";
import { fullJsonLines, shortJson } from "./short-json.js";
import { limitAmountText, limitRequestText } from "./limit-request-text.js";
import { isGatewayRunId } from "./gateway-run-prefix.js";
import { requestName, selectRequest, waitingRequests } from "./waiting-requests.js";
import type { RequestSelector, WaitingRequest } from "./waiting-requests.js";

/** The shortest digest prefix `--digest` takes: 12 hex digits, 48 bits, too many to match by chance. */
const MIN_DIGEST_PREFIX = 12;

/** A person's answer as given on the command line. */
export interface AnswerInput {
  granted: boolean;
  approver: string;
  note?: string;
  /** A limit request's raise (`--raise-to`): the limit, for the run, from then on. */
  raiseTo?: number;
  /** The digest the person reviewed (`--digest`): whole, or a prefix of at least 12 hex digits. */
  digest?: string;
  /** An edit (`--args`): the arguments the approver lets the call run with, as JSON text. */
  args?: string;
  /**
   * Which waiting request the answer is for (`--step`, `--call`), needed when a gate's session has
   * several waiting; with one waiting, it may be left out.
   */
  select?: RequestSelector;
}

/** What was recorded: the request answered, the answer, where it came from, and the run as stored after it. */
interface RecordedAnswer {
  request: ApprovalRequest;
  /** The call id of the request's step (a gate session's call), when it has one. */
  callId: string | undefined;
  approval: Approval;
  origin: AnswerOrigin;
  state: RunState;
  /**
   * Whether the answer, recorded, will count, where that can be told here (a gateway's run): `null`
   * when it will, why not when it will not (the gateway's config does not let this approver approve).
   */
  notCounted?: string | null;
}

/** How an answer is recorded, when not from the command line: where it came from, and a check of who gives it. */
export interface AnswerChannel {
  /** Where the answer came from; the command line's operating-system user and host by default. */
  origin?: AnswerOrigin;
  /**
   * Called with the pending request before anything is recorded; throws to refuse the answer (the
   * inbox refuses an approver the app's `policy.mayApprove` refuses).
   */
  check?: (request: ApprovalRequest) => void;
  /**
   * Why the answer, once recorded, will not count, where the channel can tell (a gateway's run, whose
   * config names its approvers); `null` or `undefined` when it will. Given by the caller, so that this
   * layer, below the gateway, never imports it.
   */
  notCounted?: (runId: string, approver: string, origin: AnswerOrigin) => Promise<string | null | undefined>;
}

/**
 * The edited arguments of `--args`, parsed: a JSON object, or `invalid_arguments` naming the problem.
 * Only a grant edits; the tool's schema is not in the store, so the resume that acts on the answer
 * checks the edited call against it with every other gate before it runs.
 */
export function editedArguments(input: AnswerInput): Json | undefined {
  if (input.args === undefined) return undefined;
  if (!input.granted)
    throw new LeashError("invalid_option", "Expected --args only when approving: a denial runs nothing.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.args);
  } catch (error) {
    throw new LeashError(
      "invalid_arguments",
      `Expected --args to be the edited arguments as JSON: ${(error as Error).message}.`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new LeashError("invalid_arguments", "Expected --args to be a JSON object: the arguments of the call.");
  return parsed as Json;
}

/** Checks `--as`, `--step`, `--call` and `--digest` before anything is opened; returns the digest prefix in lowercase. */
export function checkAnswerInput(input: AnswerInput): string | undefined {
  if (input.approver.trim() === "")
    throw new LeashError("invalid_option", "Expected --as to name the person who answers.");
  const step = input.select?.step;
  if (step !== undefined && (!Number.isSafeInteger(step) || step < 0))
    throw new LeashError("invalid_option", "Expected --step to be a step's index, a whole number (0 or more).");
  if (input.select?.callId !== undefined && input.select.callId === "")
    throw new LeashError("invalid_option", "Expected --call to be a call id, as leash show prints it.");
  if (input.digest === undefined) return undefined;
  const digest = input.digest.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(digest) || digest.length < MIN_DIGEST_PREFIX || digest.length > 64) {
    throw new LeashError(
      "invalid_option",
      `Expected --digest to be the request's digest, or a prefix of it of at least ${MIN_DIGEST_PREFIX} hex digits, as \`leash show\` prints it.`,
    );
  }
  return digest;
}

/**
 * The request an answer is for: the one `--step`/`--call` names; without them, the one waiting
 * request whose digest `--digest` begins, when several wait (a gate's session); else as
 * {@link selectRequest} picks it. A digest that then does not match is refused by the caller.
 */
function pickRequest(state: RunState, select: RequestSelector | undefined, pinned: string | undefined): WaitingRequest {
  if (select?.step === undefined && select?.callId === undefined && pinned !== undefined) {
    const waiting = waitingRequests(state);
    const matches = waiting.filter(({ request }) => request.digest.startsWith(pinned));
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0 && waiting.length > 1)
      throw new LeashError(
        "stale_state",
        `No request of run ${state.runId} waiting for a person has the digest you reviewed (${pinned.slice(0, 16)}…); these wait: ${waiting.map(requestName).join("; ")}. Nothing was recorded; review them with leash show ${state.runId}.`,
      );
  }
  return selectRequest(state, select);
}

/**
 * Records a person's answer to the request a run waits on, in the store (`store.answer`), bound to
 * the request's digest and with its origin (the operating-system user and host). With `--digest`, the
 * answer is for the request the person reviewed: when the pending request is no longer that one, it
 * is refused with `stale_state` and nothing is recorded; and `store.answer` refuses it too (compare-
 * and-set on the digest) if the request changes between this look and the write. It runs no tool:
 * the answer is acted on by the next resume, where the app's policy decides whether this person may
 * approve.
 */
export async function answerRun(
  store: RunStore,
  runId: string,
  input: AnswerInput,
  location: StoreLocation,
  channel: AnswerChannel = {},
): Promise<RecordedAnswer> {
  const pinned = checkAnswerInput(input);
  const args = editedArguments(input);
  const found = await findRun(store, runId, location);
  const selected = pickRequest(found, input.select, pinned);
  const { request, callId } = selected;
  if (pinned !== undefined && !request.digest.startsWith(pinned)) {
    const asks =
      request.kind === "limit"
        ? limitRequestText(request)
        : `asks to run ${request.tool} ${shortJson(request.args, 60)}`;
    throw new LeashError(
      "stale_state",
      `Run ${runId} no longer waits on the request you reviewed (${pinned.slice(0, 16)}…): at ${requestName(selected)} it now ${asks}, digest ${request.digest}. Nothing was recorded; review it with leash show ${runId}.`,
    );
  }
  checkRaiseFits(request, input);
  channel.check?.(request);
  const approval = answerOf(request, input, args);
  const origin = channel.origin ?? cliOrigin();
  const state = await store.answer(runId, approval, { origin });
  const notCounted = await channel.notCounted?.(runId, approval.approver, origin);
  return { request, callId, approval, origin, state, ...(notCounted === undefined ? {} : { notCounted }) };
}

/**
 * A limit request is approved with a raise, and only a limit request takes one: refused
 * (`invalid_option`, naming `--raise-to`) before anything is recorded. Whether the raise is above
 * what was used is `store.answer`'s to check (`invalid_answer`).
 */
function checkRaiseFits(request: ApprovalRequest, input: AnswerInput): void {
  if (request.kind === "call" && input.raiseTo !== undefined)
    throw new LeashError(
      "invalid_option",
      `--raise-to answers a request to raise a limit; step ${request.step} asks to run ${request.tool}. Nothing was recorded.`,
    );
  if (request.kind === "limit" && input.granted && input.raiseTo === undefined)
    throw new LeashError(
      "invalid_option",
      `Expected --raise-to N: the run ${limitRequestText(request)}, and approving it says to what. Nothing was recorded.`,
    );
}

/** The answer as given: a grant (a raise, for a limit request) or a denial. */
function answerOf(request: ApprovalRequest, input: AnswerInput, args: Json | undefined): Approval {
  if (!input.granted) return Approval.deny(request.digest, input.approver, input.note);
  // An edit of a limit request is refused by the store (`invalid_answer`), before anything is recorded.
  if (args !== undefined) return Approval.edit(request.digest, input.approver, args, input.note);
  if (request.kind === "limit" && input.raiseTo !== undefined)
    return Approval.raise(request.digest, input.approver, input.raiseTo, input.note);
  return Approval.grant(request.digest, input.approver, input.note);
}

/** `origin: via cli, os user "mia", host "build-3"` (`via mcp_elicitation, client "desk", host "h"`): where an answer came from, each part labelled and quoted. */
export function originText(origin: AnswerOrigin): string {
  // Every field the channel told, in its order (the command line's user and host, a gateway's client and host).
  const fields = Object.entries(origin)
    .filter(([key]) => key !== "via")
    .map(([key, value]) => `, ${key === "user" && origin.via === "cli" ? "os user" : key} ${JSON.stringify(value)}`);
  return `origin: via ${origin.via}${fields.join("")}`;
}

/** What happens next: a gateway's run runs when its client calls again; any other, when the app resumes it. */
function nextLines(state: RunState, location: StoreLocation): string[] {
  const runId = state.runId;
  if (state.gate === true)
    return [
      "Nothing ran yet: this is a gate's session, driven by the app's framework loop; its policy decides who may approve.",
      "Next: the call runs when the app's loop makes it again with the same call id (a grant by an allowed approver lets it run).",
    ];
  if (isGatewayRunId(runId))
    return [
      "Nothing ran yet: this is a call through `leash mcp serve`; its gateway's policy decides who may approve.",
      "Next: the gateway runs it when the client makes the same call again (same tool, same arguments).",
    ];
  return [
    "Nothing ran yet: the app acts on the answer when it resumes the run, and its policy decides there who may approve.",
    `Next: leash resume ${runId} --agent PATH ${location.args} (or let your worker pick it up).`,
  ];
}

/** The lines `leash approve` and `leash deny` print once an answer is recorded. */
export function answerLines(recorded: RecordedAnswer, location: StoreLocation): string[] {
  const { request, approval, origin, state } = recorded;
  const verb = approval.granted ? "Approved" : "Denied";
  const call = recorded.callId === undefined ? "" : ` (call ${JSON.stringify(recorded.callId)})`;
  const what =
    request.kind === "limit"
      ? [
          `${verb} the raise of ${request.limit} at step ${request.step} of run ${state.runId}: used ${limitAmountText(request.limit, request.used)} of ${limitAmountText(request.limit, request.allowed)}${approval.raiseTo === undefined ? "" : `, raised to ${approval.raiseTo}`}.`,
        ]
      : [
          `${verb} step ${request.step}${call} of run ${state.runId}: ${request.tool} (effect ${request.effect}) with these arguments, in full:`,
          ...fullJsonLines(request.args, "  "),
        ];
  return [
    ...what,
    `Recorded as ${JSON.stringify(approval.approver)}; ${originText(origin)}${approval.note === undefined ? "" : `; note ${JSON.stringify(approval.note)}`}; for request digest ${request.digest}.`,
    ...(approval.args === undefined
      ? []
      : ["With the arguments edited to, in full:", ...fullJsonLines(approval.args, "  ")]),
    ...countLines(state, request),
    ...(typeof recorded.notCounted === "string"
      ? [`The answer was recorded but will not count: ${recorded.notCounted}.`]
      : nextLines(state, location)),
  ];
}

/** "k of n approvals recorded" for a request under a quorum, as a line. */
function countLines(state: RunState, request: ApprovalRequest): string[] {
  const stored = waitingRequests(state).find((item) => item.request.digest === request.digest)?.request ?? request;
  const count = approvalCount(state, stored);
  return count === undefined ? [] : [`${count} recorded so far.`];
}

/** The JSON `leash approve --json` and `leash deny --json` print. */
export function answerJson(recorded: RecordedAnswer): unknown {
  return {
    runId: recorded.state.runId,
    status: recorded.state.status,
    request: recorded.request,
    ...(recorded.callId === undefined ? {} : { callId: recorded.callId }),
    ...(recorded.state.gate === true ? { gate: true } : {}),
    answer: recorded.approval.toJSON(),
    origin: recorded.origin,
    // Whether the run's policy lets this answer decide, where it is known here (a gateway's run).
    ...(recorded.notCounted === undefined ? {} : { counts: recorded.notCounted === null }),
    ...(typeof recorded.notCounted === "string" ? { notCounted: recorded.notCounted } : {}),
  };
}
