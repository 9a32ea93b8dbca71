import { LeashError } from "../index.js";
import type { ApprovalRequest, RunState } from "../index.js";
import { answerRun } from "../operate/answer-run.js";
import type { StoreLocation } from "../operate/store-location.js";
import type { CliStore } from "../operate/open-store.js";
import { whyGatewayWillNotCount } from "../gateway/gateway-run-approval.js";

/** What the inbox needs of the app's policy: who may answer a request. */
export interface ApproverCheck {
  mayApprove(approver: string, request: ApprovalRequest): unknown;
  /** leash's `Policy.checkApprover`, which a resume applies: only `"allowed"` lets an answer through. */
  checkApprover?(approver: string, request: ApprovalRequest): unknown;
}

/**
 * Whether the policy lets this approver answer, judged as a resume judges it: `checkApprover` (when
 * the policy has it) must say `"allowed"` and `mayApprove` must return `true` itself; anything else
 * (a Promise, a truthy value, a throw) refuses.
 */
function policyAllows(policy: ApproverCheck, approver: string, request: ApprovalRequest): boolean {
  try {
    if (
      typeof policy.checkApprover === "function" &&
      policy.checkApprover(approver, structuredClone(request)) !== "allowed"
    )
      return false;
    const answer = policy.mayApprove(approver, structuredClone(request));
    if (answer instanceof Promise) answer.catch(() => undefined);
    return answer === true;
  } catch {
    return false;
  }
}

/** An answer as a signed-in approver gives it on the run's page or through the API. */
interface InboxAnswer {
  /** The full digest of the request the page showed. */
  digest: unknown;
  decision: unknown;
  note?: unknown;
}

/** Where the inbox records answers, and whose policy it applies. */
interface AnswerContext {
  store: CliStore;
  location: StoreLocation;
  /** The app's policy, when `--agent` is given. */
  policy?: ApproverCheck;
}

/** The longest note kept with an answer. */
const MAX_NOTE_LENGTH = 2000;

/**
 * Records a signed-in approver's answer the same way `leash approve` and `leash deny` do
 * ({@link answerRun}): pinned to the digest the page showed (a request that changed is refused with
 * `stale_state`, and `store.answer` refuses it too if it changes between this look and the write),
 * under the signed-in name only, with the origin `{ via: "leash-serve", user, host }`. With the
 * app's policy, an approver its `mayApprove` refuses is refused (`approver_not_allowed`) and nothing
 * is recorded.
 */
export async function answerFromInbox(
  context: AnswerContext,
  runId: string,
  approver: string,
  answer: InboxAnswer,
  host: string,
): Promise<RunState> {
  const { digest, decision, note } = answer;
  if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest))
    throw new LeashError("invalid_option", "Expected digest to be the 64 hex digits of the request the page showed.");
  if (decision !== "approve" && decision !== "deny")
    throw new LeashError("invalid_option", 'Expected decision to be "approve" or "deny".');
  if (note !== undefined && note !== null && typeof note !== "string")
    throw new LeashError("invalid_option", "Expected note to be text.");
  const text = typeof note === "string" && note.trim() !== "" ? note : undefined;
  if (text !== undefined && text.length > MAX_NOTE_LENGTH)
    throw new LeashError("invalid_option", `Expected note to be at most ${MAX_NOTE_LENGTH} characters.`);
  const { policy } = context;
  const recorded = await answerRun(
    context.store,
    runId,
    { granted: decision === "approve", approver, digest, ...(text === undefined ? {} : { note: text }) },
    context.location,
    {
      origin: { via: "leash-serve", user: approver, host },
      notCounted: (id, name, origin) => whyGatewayWillNotCount(context.location, id, name, origin),
      ...(policy === undefined
        ? {}
        : {
            check: (request: ApprovalRequest) => {
              if (!policyAllows(policy, approver, request))
                throw new LeashError(
                  "approver_not_allowed",
                  `${approver} may not answer this request: the app's policy (mayApprove) refuses. Nothing was recorded.`,
                );
            },
          }),
    },
  );
  return recorded.state;
}
