import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { ApprovalRequest } from "../approvals/approval.js";

/** The channel of an answer given by the person at the MCP client (elicitation). */
export const ELICITATION_VIA = "mcp_elicitation";

/**
 * Who may approve a gateway's calls: the config's `policy.approvers` (absent: anyone), and whether an
 * answer given at the client (`approval.elicitationApproves`) counts. The gateway records it beside
 * each run it starts, so `leash approve` can say at once that an answer will not count.
 */
export interface GatewayApproval {
  approvers?: string[];
  elicitationApproves: boolean;
}

/**
 * Why an answer by `approver`, given through `origin`, does not count for the gateway, or `undefined`
 * when it counts: a name the config's `policy.approvers` does not list, or an answer given at the
 * client (`via: "mcp_elicitation"`) when the config does not let such answers approve.
 */
export function whyNotCounted(
  approval: GatewayApproval,
  approver: string,
  origin: AnswerOrigin | undefined,
): string | undefined {
  const { approvers } = approval;
  if (approvers !== undefined && !approvers.includes(approver))
    return approvers.length === 0
      ? `the gateway's config (policy.approvers) lets nobody approve`
      : `the gateway's config (policy.approvers) lets only ${approvers.map((name) => JSON.stringify(name)).join(", ")} approve`;
  if (origin?.via === ELICITATION_VIA && !approval.elicitationApproves)
    return "it was given at the MCP client, and the gateway's config does not let answers given there approve (approval.elicitationApproves)";
  return undefined;
}

/** The gateway's `policy.mayApprove`: the answers {@link whyNotCounted} finds no fault with. */
export function gatewayMayApprove(
  approval: GatewayApproval,
): (approver: string, request: ApprovalRequest, origin?: AnswerOrigin) => boolean {
  return (approver, _request, origin) => whyNotCounted(approval, approver, origin) === undefined;
}
