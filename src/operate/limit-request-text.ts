import type { LimitApprovalRequest } from "../approvals/approval.js";
import { costText } from "./cost-text.js";

/** What a limit counts, as a person reads it. */
const WHAT: Record<LimitApprovalRequest["limit"], string> = {
  max_cost: "cost",
  max_tokens: "tokens",
  max_tool_calls: "tool calls",
  max_steps: "steps",
  budget_cost: "shared budget's cost",
  budget_tokens: "shared budget's tokens",
  budget_tool_calls: "shared budget's tool calls",
};

/** A limit's amount as a person reads it: a cost rounded for reading, a count as it is. */
export function limitAmountText(limit: LimitApprovalRequest["limit"], amount: number): string {
  return limit === "max_cost" || limit === "budget_cost" ? costText(amount) : String(amount);
}

/**
 * What a limit request asks, in one line a person reads: `reached max_cost (cost 0.05 used of
 * 0.05) at step 3; asks to raise it`. The exact numbers are in `--json` and the API.
 */
export function limitRequestText(request: LimitApprovalRequest): string {
  const used = limitAmountText(request.limit, request.used);
  const allowed = limitAmountText(request.limit, request.allowed);
  return `reached ${request.limit} (${WHAT[request.limit]} ${used} used of ${allowed}) at step ${request.step}; asks to raise it`;
}
