import type { ApprovalJson } from "../approvals/approval.js";
import { canonicalOfJson, copyJson } from "../json/index.js";
import type { Step } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";

/**
 * Puts an approval's edit in place of the proposed arguments, once: `step.edited` and an
 * `arguments_edited` record. An edit equal to the proposed arguments is no edit. Whether it did.
 */
export function applyEdit(run: ActiveRun, step: Step, answer: ApprovalJson | undefined): boolean {
  const { decision } = step;
  if (answer?.args === undefined || !answer.granted || step.edited !== undefined || decision.type !== "act")
    return false;
  if (canonicalOfJson(answer.args) === canonicalOfJson(decision.args)) return false;
  step.edited = { args: copyJson(answer.args), by: answer.approver };
  run.record("arguments_edited", {
    step: step.index,
    from: copyJson(decision.args),
    to: copyJson(answer.args),
    by: answer.approver,
  });
  return true;
}
