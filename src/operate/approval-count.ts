import type { ApprovalRequest } from "../approvals/approval.js";
import type { RunState } from "../state/run-state.js";

/**
 * "k of n approvals" for a request under a quorum above one, else `undefined`: k counts the distinct
 * approvers whose grants are recorded for it so far. Nothing here can judge the app's policy, so a
 * grant its `mayApprove` would refuse is counted too; a resume works out who counts (`grantedBy`).
 */
export function approvalCount(state: RunState, request: ApprovalRequest): string | undefined {
  if (request.kind !== "call") return undefined;
  const quorum = request.quorum ?? 1;
  if (quorum <= 1) return undefined;
  const granters = new Set(request.grantedBy ?? []);
  for (const answer of state.answers)
    if (answer.digest === request.digest && answer.granted) granters.add(answer.approver);
  return `${granters.size} of ${quorum} approvals`;
}
