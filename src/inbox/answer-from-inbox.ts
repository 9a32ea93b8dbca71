import { LeashError } from "../errors/leash-error.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { RunState } from "../state/run-state.js";
import { answerRun, editedArguments } from "../operate/answer-run.js";
import { waitingRequests } from "../operate/waiting-requests.js";
import type { StoreLocation } from "../operate/store-location.js";
import type { AnswerOrigin } from "../operate/answer-origin.js";
import type { CliStore } from "../operate/open-store.js";
import { whyGatewayWillNotCount } from "../gateway/gateway-run-approval.js";
import { roleRefused, rolesText, roleToAnswer } from "./approver-roles.js";
import type { Role } from "./approver-roles.js";
import type { KeyedQueue } from "./keyed-queue.js";
import { answerEffect, answersToPending } from "./standing-answers.js";
import type { AnswerEffect } from "./standing-answers.js";

/** What the inbox needs of the app's policy: who may answer a request. */
export interface ApproverCheck {
  mayApprove(approver: string, request: ApprovalRequest, origin?: AnswerOrigin): unknown;
  /** leash's `Policy.checkApprover`, which a resume applies: only `"allowed"` lets an answer through. */
  checkApprover?(approver: string, request: ApprovalRequest, origin?: AnswerOrigin): unknown;
}

/**
 * Whether the policy lets this approver answer, judged as a resume judges it: `checkApprover` (when
 * the policy has it) must say `"allowed"` and `mayApprove` must return `true` itself; anything else
 * (a Promise, a truthy value, a throw) refuses.
 */
function policyAllows(
  policy: ApproverCheck,
  approver: string,
  request: ApprovalRequest,
  origin: AnswerOrigin,
): boolean {
  try {
    if (
      typeof policy.checkApprover === "function" &&
      policy.checkApprover(approver, structuredClone(request), { ...origin }) !== "allowed"
    )
      return false;
    const answer = policy.mayApprove(approver, structuredClone(request), { ...origin });
    if (answer instanceof Promise) answer.catch(() => undefined);
    return answer === true;
  } catch {
    return false;
  }
}

/**
 * Refuses a field whose text is not well-formed UTF-16 (a lone surrogate): it could not be recorded
 * as JSON, so it is the caller's mistake (`not_json`, a 400), named before anything is looked up.
 */
function checkWellFormed(field: string, value: unknown): void {
  if (typeof value !== "string" || value.isWellFormed()) return;
  const at = value.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  const unit = value.charCodeAt(at).toString(16);
  throw new LeashError(
    "not_json",
    `Expected ${field} to be text, but it holds a lone surrogate (\\u${unit} at character ${at + 1}), which JSON text cannot carry. Nothing was recorded.`,
  );
}

/**
 * The edit of an answer as JSON text, checked as `leash approve --args` checks it (a JSON object,
 * on an approval only: `invalid_arguments` or `invalid_option`, a 400, before anything is looked
 * up); `undefined` for no edit (the field left empty).
 */
function editText(args: unknown, granted: boolean): string | undefined {
  if (args === undefined || args === null || (typeof args === "string" && args.trim() === "")) return undefined;
  checkWellFormed("args", args);
  const text = typeof args === "string" ? args : JSON.stringify(args);
  editedArguments({ granted, approver: "inbox", args: text });
  return text;
}

/** An answer as a signed-in approver gives it on the run's page or through the API. */
interface InboxAnswer {
  /** The full digest of the request the page showed. */
  digest: unknown;
  decision: unknown;
  note?: unknown;
  /** A limit request's raise (`raise_to`): a number, or its text from a form; empty when not given. */
  raiseTo?: unknown;
  /** An edit: the arguments to approve the call with instead, as JSON text (the form) or a JSON object (the API). */
  args?: unknown;
}

/** `raise_to` as given: a number, or a form's text of one; left out when empty. */
function readRaise(value: unknown): number | undefined {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) return undefined;
  const parsed = typeof value === "string" ? Number(value.trim()) : value;
  if (typeof parsed !== "number" || !Number.isFinite(parsed))
    throw new LeashError(
      "invalid_option",
      "Expected raise_to to be a number, the limit to raise to. Nothing was recorded.",
    );
  return parsed;
}

/** Where the inbox records answers, and whose policy it applies. */
interface AnswerContext {
  store: CliStore;
  location: StoreLocation;
  /** The app's policy, when `--agent` is given. */
  policy?: ApproverCheck;
  /** Where the answers to one run wait their turn: each is judged against the answers recorded before it. */
  answerQueue: KeyedQueue;
}

/** What an answer given in the inbox did. */
export interface InboxAnswered {
  /** The run as stored after the answer (unchanged when nothing was recorded). */
  state: RunState;
  /** Whether the answer was recorded: false for the same answer given again by the same approver. */
  recorded: boolean;
  /** A sentence to show beside the answer: why nothing was recorded, or that a denial already stands. */
  notice?: string;
}

/**
 * Refuses an answer the person's roles do not allow (`role_refused`): a call's request takes the role
 * `approver`, a limit request the role `spender`. Judged before the app's `mayApprove`, which still
 * decides afterwards.
 */
function checkRole(approver: string, roles: readonly Role[], request: Pick<ApprovalRequest, "kind">): void {
  const needs = roleToAnswer(request);
  if (!roles.includes(needs))
    throw roleRefused(
      approver,
      roles,
      request.kind === "limit" ? "answer a limit request" : "answer a call's request",
      needs,
    );
}

/** The longest note kept with an answer. */
const MAX_NOTE_LENGTH = 2000;

/**
 * Records a signed-in approver's answer the same way `leash approve` and `leash deny` do
 * ({@link answerRun}): pinned to the digest the page showed (a request that changed is refused with
 * `stale_state`, and `store.answer` refuses it too if it changes between this look and the write),
 * under the signed-in name only, with the origin `{ via: "leash-serve", user, host, roles }` (`roles`
 * joined with ","), or the one given (a one-time link's). The person's roles must answer the request's
 * kind (`role_refused` otherwise: `approver` for a call, `spender` for a limit request). With the app's
 * policy, an approver its `mayApprove` refuses is refused (`approver_not_allowed`) and nothing
 * is recorded. Judged against the answers already recorded for the request ({@link answerEffect}):
 * the same answer again records nothing, a different one from the same approver is refused
 * (`stale_state`), and an approval given while a denial stands is recorded with a notice saying so.
 */
export async function answerFromInbox(
  context: AnswerContext,
  runId: string,
  approver: string,
  answer: InboxAnswer,
  host: string,
  roles: readonly Role[],
  origin: AnswerOrigin = { via: "leash-serve", user: approver, host, roles: rolesText(roles) },
): Promise<InboxAnswered> {
  const { digest, decision, note } = answer;
  for (const [field, value] of Object.entries({ digest, decision, note })) checkWellFormed(field, value);
  if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest))
    throw new LeashError("invalid_option", "Expected digest to be the 64 hex digits of the request the page showed.");
  if (decision !== "approve" && decision !== "deny")
    throw new LeashError("invalid_option", 'Expected decision to be "approve" or "deny".');
  if (note !== undefined && note !== null && typeof note !== "string")
    throw new LeashError("invalid_option", "Expected note to be text.");
  const text = typeof note === "string" && note.trim() !== "" ? note : undefined;
  if (text !== undefined && text.length > MAX_NOTE_LENGTH)
    throw new LeashError("invalid_option", `Expected note to be at most ${MAX_NOTE_LENGTH} characters.`);
  const granted = decision === "approve";
  // A denial raises nothing: a raise typed before pressing Deny is not kept.
  const raiseTo = granted ? readRaise(answer.raiseTo) : undefined;
  const edit = editText(answer.args, granted);
  return context.answerQueue.run(runId, async () => {
    // A run that cannot be loaded here is refused by the recording below, with its own message.
    const current = await context.store.load(runId).catch(() => null);
    // The roles are judged first, so that not even a repeat of an answer is told to someone they refuse.
    const asked =
      current === null ? undefined : waitingRequests(current).find((item) => item.request.digest === digest);
    if (asked !== undefined) checkRole(approver, roles, asked.request);
    // Judged only against the request the page showed; any other state is refused below, as it was.
    const effect: AnswerEffect =
      current !== null && answersToPending(current, digest).length > 0
        ? answerEffect(answersToPending(current, digest), approver, granted)
        : { type: "record" };
    if (effect.type === "repeat" && current !== null) return { state: current, recorded: false, notice: effect.notice };
    const state = await record(
      context,
      runId,
      { name: approver, roles },
      { granted, digest, text, raiseTo, edit },
      origin,
    );
    return { state, recorded: true, ...(effect.notice === undefined ? {} : { notice: effect.notice }) };
  });
}

async function record(
  context: AnswerContext,
  runId: string,
  person: { name: string; roles: readonly Role[] },
  answer: {
    granted: boolean;
    digest: string;
    text: string | undefined;
    raiseTo: number | undefined;
    edit: string | undefined;
  },
  origin: AnswerOrigin,
): Promise<RunState> {
  const { granted, digest, text, raiseTo, edit } = answer;
  const { policy } = context;
  const { name: approver, roles } = person;
  const recorded = await answerRun(
    context.store,
    runId,
    {
      granted,
      approver,
      digest,
      ...(text === undefined ? {} : { note: text }),
      ...(raiseTo === undefined ? {} : { raiseTo }),
      ...(edit === undefined ? {} : { args: edit }),
    },
    context.location,
    {
      origin,
      notCounted: (id, name, origin) => whyGatewayWillNotCount(context.location, id, name, origin),
      // The request as it is recorded against: the roles first, then the app's policy.
      check: (request: ApprovalRequest) => {
        checkRole(approver, roles, request);
        if (policy !== undefined && !policyAllows(policy, approver, request, origin))
          throw new LeashError(
            "approver_not_allowed",
            `${approver} may not answer this request: the app's policy (mayApprove) refuses. Nothing was recorded.`,
          );
      },
    },
  );
  return recorded.state;
}
