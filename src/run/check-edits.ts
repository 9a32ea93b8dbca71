import type { Approval, ApprovalRequest } from "../approvals/approval.js";
import { LeashError } from "../errors/index.js";
import type { Toolset } from "../tools/toolset.js";

/**
 * Refuses, before anything is recorded, an edit given to a resume that the tool's schema refuses:
 * `invalid_arguments`, naming the approver and the problems. Only the edits of answers to this
 * request are checked; a tool no longer known is left to the gates (`unknown_tool`), and a typed
 * schema's own check runs with every other gate on the edited call.
 */
export function checkEdits(tools: Toolset, pending: ApprovalRequest, approvals: readonly Approval[]): void {
  if (pending.kind !== "call") return;
  const tool = tools.get(pending.tool);
  if (tool === undefined) return;
  for (const approval of approvals) {
    if (approval.args === undefined || approval.digest !== pending.digest) continue;
    const validation = tool.validator.validate(approval.args);
    if (!validation.valid)
      throw new LeashError(
        "invalid_arguments",
        `The arguments ${approval.approver} gave for \`${tool.name}\` do not match its schema: ${validation.errors.join("; ")}. Nothing was recorded.`,
        { details: { runId: pending.runId, step: pending.step, approver: approval.approver } },
      );
  }
}
