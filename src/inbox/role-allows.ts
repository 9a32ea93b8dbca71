import type { ApprovalRequest } from "../index.js";

/**
 * A role of a person in the approver registry: `approver` answers requests to run a tool, `viewer`
 * sees runs and trails and answers nothing, `spender` answers requests to raise a limit.
 */
export type Role = "approver" | "viewer" | "spender";

/**
 * Whether a person with these roles may answer this request: a call's request needs `approver`, a
 * limit request needs `spender`; `viewer` answers nothing. The app's `policy.mayApprove` still decides
 * per request after this.
 */
export function rolesAllowAnswer(roles: readonly Role[], request: Pick<ApprovalRequest, "kind">): boolean {
  switch (request.kind) {
    case "call":
      return roles.includes("approver");
    case "limit":
      return roles.includes("spender");
    default:
      return false;
  }
}
