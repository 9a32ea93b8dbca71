import type { ApprovalJson, CallApprovalRequest } from "../approvals/approval.js";
import { Approval } from "../approvals/approval.js";
import { approvalDigest, historyDigest } from "../approvals/approval-digest.js";
import type { ActDecision } from "../decisions/decision.js";
import { messageOf } from "../errors/index.js";
import type { Failure, RecordedAnswer, RunState, Step } from "../state/run-state.js";
import type { Tool } from "../tools/tool.js";
import type { ActiveRun } from "./active-run.js";
import { raceAbort } from "./race-abort.js";
import { approveByGrants, grantsFor } from "./standing-grant.js";

/** What the approval gate decided. */
type ApprovalResult =
  | { type: "go"; approval: ApprovalJson | undefined }
  | { type: "deny"; outcome: "approval_denied" | "approval_stale"; message: string; approval: ApprovalJson }
  | { type: "pause"; request: CallApprovalRequest; history: string; answered?: RecordedAnswer }
  | { type: "fail"; failure: Failure };

/**
 * The digest of the history a step's request is bound to: every earlier step's decision, outcome,
 * result and error. In a gate's session an earlier call may still be open (waiting for a person, or
 * running) when a later one is asked, and settle afterwards; the step then names those calls
 * (`openAtRequest`) and they count as open, as they were when the person was asked. So the digest
 * recomputed at answer time is the one asked, while a change to anything that was settled then (an
 * edited argument, result or outcome), or to the list itself, gives another digest.
 */
export function requestHistory(state: RunState, step: Pick<Step, "index" | "openAtRequest">): string {
  const open = new Set(step.openAtRequest ?? []);
  return historyDigest({
    runId: state.runId,
    nonce: state.nonce,
    goal: state.goal,
    principal: state.principal ?? null,
    steps: state.steps.slice(0, step.index).map((earlier) =>
      open.has(earlier.index)
        ? { decision: earlier.decision as never, outcome: null, result: null, error: null }
        : {
            decision: earlier.decision as never,
            outcome: earlier.outcome,
            result: earlier.result,
            error: earlier.error === undefined ? null : { code: earlier.error.code, message: earlier.error.message },
          },
    ),
  });
}

/**
 * In a gate's session, names on a step about to be asked for the earlier calls still open, so that
 * its history stays the one the person saw ({@link requestHistory}). Left out when none is open:
 * every earlier call settled then stays settled, so an empty list and no list are the same history.
 */
function markOpenCalls(state: RunState, step: Step): void {
  if (state.gate !== true || step.openAtRequest !== undefined) return;
  const open = state.steps
    .slice(0, step.index)
    .filter((earlier) => earlier.outcome === null)
    .map((earlier) => earlier.index);
  if (open.length > 0) step.openAtRequest = open;
}

/** The digest of this step's action and the history before it, from the tool as it is now. */
function actionDigest(run: ActiveRun, step: Step, tool: Tool): { digest: string; history: string } {
  const { state } = run;
  const history = requestHistory(state, step);
  const decision = step.decision as ActDecision;
  const digest = approvalDigest({
    runId: state.runId,
    step: step.index,
    tool: tool.name,
    args: decision.args,
    effect: tool.effect,
    scopes: tool.scopes,
    historyDigest: history,
    ...(tool.definition === undefined ? {} : { definition: tool.definition as never }),
  });
  return { digest, history };
}

/** The longest argument schema a step keeps for checking edits, in characters of JSON. */
const MAX_KEPT_SCHEMA_LENGTH = 65_536;

/**
 * A pause for a person, with the tool's argument schema kept on the step (see `Step.argsSchema`):
 * an edit given with the answer is then checked where the tool is not at hand, before anything is
 * recorded. A schema too long to keep is kept as `false`: an edit recorded out of process is then
 * refused, and only a resume, which holds the tool, takes one.
 */
function paused<T extends ApprovalResult & { type: "pause" }>(step: Step, tool: Tool, result: T): T {
  step.argsSchema ??= JSON.stringify(tool.parameters).length <= MAX_KEPT_SCHEMA_LENGTH ? tool.parameters : false;
  return result;
}

function judge(answer: ApprovalJson, digestNow: string): ApprovalResult {
  if (answer.digest !== digestNow) {
    return {
      type: "deny",
      outcome: "approval_stale",
      approval: answer,
      message: "The action or the history changed since it was approved; the approval authorises nothing.",
    };
  }
  if (!answer.granted) {
    const note = answer.note === undefined ? "" : `: ${answer.note}`;
    return {
      type: "deny",
      outcome: "approval_denied",
      approval: answer,
      message: `${answer.approver} refused the call${note}`,
    };
  }
  return { type: "go", approval: answer };
}

/**
 * The last gate of a write or external call: a person's approval, bound to the digest of the exact
 * action and history. `answer` is the answer a resume brought for this step's pending request.
 */
export async function approvalGate(
  run: ActiveRun,
  step: Step,
  tool: Tool,
  answer: ApprovalJson | undefined,
  options: { probe?: boolean } = {},
): Promise<ApprovalResult> {
  const { policy, approver } = run.core;
  if (!policy.needsApproval(tool.effect)) return { type: "go", approval: undefined };
  // Only a new request is marked: an answer or a kept grant is judged against the history as asked.
  if (answer === undefined && step.approval === undefined) markOpenCalls(run.state, step);
  const { digest, history } = actionDigest(run, step, tool);
  // An answer given to the request as it was asked authorises the action only if recomputing it from
  // the tools as they are now gives the same digest.
  if (answer !== undefined) return judge(answer, digest);
  const decision = step.decision as ActDecision;
  const request: CallApprovalRequest = {
    kind: "call",
    runId: run.state.runId,
    step: step.index,
    tool: tool.name,
    args: structuredClone(decision.args),
    effect: tool.effect,
    scopes: [...tool.scopes],
    digest,
    requestedAt: run.now(),
  };
  if (decision.reason !== undefined) request.reason = decision.reason;
  // A grant kept on the step (a call restarted by crash recovery) is the policy's to judge again: a
  // saved state that names an approver the policy refuses authorises nothing.
  if (step.approval !== undefined) {
    const kept = step.approval;
    // The origin of the recorded answer the grant came from, if it was recorded out of process.
    const origin = run.state.answers.find(
      (item) => item.digest === kept.digest && item.approver === kept.approver && item.granted,
    )?.origin;
    if (kept.granted && !policy.mayApprove(kept.approver, structuredClone(request), origin)) {
      return {
        type: "deny",
        outcome: "approval_denied",
        approval: step.approval,
        message: `The grant kept on this step names ${JSON.stringify(step.approval.approver)}, whom the policy's mayApprove refuses; it authorises nothing.`,
      };
    }
    return judge(step.approval, digest);
  }
  // The quorum is asked once, when the request is made; the request carries it from then on.
  const quorum = policy.quorumOf(structuredClone(request));
  if (quorum.type === "failed") return { type: "fail", failure: { code: "policy_failed", message: quorum.message } };
  if (quorum.quorum !== undefined) {
    request.quorum = quorum.quorum;
    request.grantedBy = [];
  }
  // A standing grant approves before anyone is asked and before the run would pause: nobody is
  // asked, so no `approval_requested` is written, only the use's `approval_answered`. Under a quorum
  // above one, as many grants of distinct givers as the quorum approve it together, their uses
  // taken in one save; fewer wait, and are recorded as answers once the run has paused (a gate's
  // session, whose requests do not pause, leaves them to its people).
  const quorumOfRequest = request.quorum ?? 1;
  // A probe (a gate's `needsApproval`) only asks whether grants would approve: the uses are taken
  // by the call itself, so a framework that asks and never calls spends nothing.
  if (options.probe === true && (await grantsFor(run, request, quorumOfRequest)).length >= quorumOfRequest)
    return { type: "go", approval: undefined };
  const granted = await approveByGrants(run, step, tool, request);
  if (granted !== undefined) return { type: "go", approval: granted };
  if (approver === undefined) return paused(step, tool, { type: "pause", request, history });
  let given: unknown;
  // Raced against the run's signal: a cancel while the approver decides ends the run (the pause the
  // caller then checks for is refused), and a late answer is ignored. Time spent deciding is a
  // person's time, not the run's: it does not count against maxDurationMs.
  const started = run.core.clock().getTime();
  const raced = await raceAbort(() => approver(structuredClone(request)), run.controller.signal);
  run.excludeFromElapsed(run.core.clock().getTime() - started);
  try {
    if (raced.type === "aborted") return paused(step, tool, { type: "pause", request, history });
    if (raced.type === "threw") throw raced.error;
    given = raced.value;
  } catch (error) {
    run.record("approval_answered", {
      step: step.index,
      accepted: false,
      reason: "approver_failed",
      message: messageOf(error),
    });
    return paused(step, tool, { type: "pause", request, history });
  }
  if (given === null || given === undefined) return paused(step, tool, { type: "pause", request, history });
  let approval: Approval;
  try {
    // Always rebuilt from one read of each field: an Approval (or a Proxy of one) given back may not
    // answer the same on a second read.
    approval = Approval.fromJSON(given);
  } catch (error) {
    run.record("approval_answered", {
      step: step.index,
      accepted: false,
      reason: "invalid_answer",
      message: messageOf(error),
    });
    return paused(step, tool, { type: "pause", request, history });
  }
  if (approval.raiseTo !== undefined) {
    run.record("approval_answered", {
      step: step.index,
      accepted: false,
      reason: "invalid_answer",
      message: "A raise answers a limit request, not a call's.",
    });
    return paused(step, tool, { type: "pause", request, history });
  }
  if (approval.digest !== digest) {
    run.record("approval_answered", {
      step: step.index,
      accepted: false,
      reason: "other_request",
      approver: approval.approver,
    });
    return paused(step, tool, { type: "pause", request, history });
  }
  if (!policy.mayApprove(approval.approver, request)) {
    run.record("approval_answered", {
      step: step.index,
      accepted: false,
      reason: "approver_not_allowed",
      approver: approval.approver,
    });
    return paused(step, tool, { type: "pause", request, history });
  }
  // The approver counts as one answer: a grant short of the quorum is kept as a recorded answer,
  // written after the pause's records like any answer to the paused request.
  if (approval.granted && (request.quorum ?? 1) > 1) {
    request.grantedBy = [approval.approver];
    return paused(step, tool, { type: "pause", request, history, answered: approval.toJSON() });
  }
  run.record("approval_answered", { step: step.index, accepted: true, ...approval.toJSON() });
  return judge(approval.toJSON(), digest);
}
