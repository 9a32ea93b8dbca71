import { Approval } from "../approvals/approval.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { StateError } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { canonicalOfJson } from "../json/index.js";
import type { RecordedAnswer, RunState } from "../state/run-state.js";
import type { AgentCore, CompiledSkill } from "./agent-core.js";
import { ActiveRun } from "./active-run.js";
import { answeredData, leftoverAnswerRecords } from "./audit-answers.js";

/** An answer a resume heard, and whether the policy lets its approver answer. */
export interface HeardAnswer {
  json: RecordedAnswer;
  allowed: boolean;
  /** Its place in `state.answers` when it was recorded in the store (`store.answer`), not given to this resume. */
  index: number | undefined;
}

/**
 * What the answers to a pending request decide: the answer that decides it (an allowed denial, or
 * the grant that met the quorum), or, short of the quorum, who granted so far; with the answers to
 * audit either way.
 */
export type DecidedAnswers =
  | { type: "decided"; answer: Approval; heard: HeardAnswer[]; grants: Approval[] }
  | { type: "short"; grantedBy: string[]; heard: HeardAnswer[] };

/**
 * Decides a pending request from every answer to it: those given to this resume and those recorded
 * in the store. Safety first: a denial by an allowed approver wins over every grant; a grant decides
 * only when no allowed approver denied. An answer from someone `policy.mayApprove` refuses decides
 * nothing (it is audited all the same). When mayApprove throws for any answer, nothing is decided:
 * the resume is refused (`approver_check_failed`) and the run stays paused. Returns null when no answer matches the request, and the
 * answers to audit with the claim (the given ones and the recorded ones not audited yet).
 */
export function decideAnswers(
  core: AgentCore,
  state: RunState,
  pending: ApprovalRequest,
  approvals: readonly Approval[],
  unaudited: ReadonlySet<number>,
): DecidedAnswers | null {
  const given = approvals.filter((item) => item.digest === pending.digest);
  const recorded = state.answers
    .map((json, index) => ({ json, index }))
    .filter((item) => item.json.digest === pending.digest);
  const all: { approval: Approval; json: RecordedAnswer; index: number | undefined }[] = [
    ...given.map((item) => ({ approval: item, json: item.toJSON(), index: undefined })),
    ...recorded.map(({ json, index }) => ({ approval: Approval.fromJSON(json), json, index })),
  ];
  if (all.length === 0) return null;
  const checked = all.map((item) => ({
    ...item,
    check: core.policy.checkApprover(item.approval.approver, structuredClone(pending), item.json.origin),
  }));
  // Safety first: a check that throws could hide a denial, so no answer decides, the grants included.
  const threw = checked.filter((item) => item.check === "threw").map((item) => item.approval.approver);
  if (threw.length > 0) {
    throw new StateError(
      "approver_check_failed",
      `The policy's mayApprove threw for ${[...new Set(threw)].join(", ")}; no answer decides until it can say.`,
      { details: { runId: state.runId, approvers: threw } },
    );
  }
  const judged = checked.map((item) => ({ ...item, allowed: item.check === "allowed" }));
  const allowed = judged.filter((item) => item.allowed);
  if (allowed.length === 0) {
    const who = [...new Set(judged.map((item) => item.approval.approver))].join(", ");
    throw new StateError(
      "approver_not_allowed",
      `${who} may not answer this request; the policy's mayApprove refuses.`,
      {
        details: { runId: state.runId, approvers: judged.map((item) => item.approval.approver) },
      },
    );
  }
  // The recorded answers already in the trail (audited with the answer, or by an earlier claim) are
  // not audited again.
  const heard = judged
    .filter((item) => item.index === undefined || unaudited.has(item.index))
    .map(({ json, allowed: ok, index }) => ({ json, allowed: ok, index }));
  // Every allowed grant, in order: a limit request takes the smallest raise among them.
  const grants = allowed.filter((item) => item.approval.granted).map((item) => item.approval);
  const denial = allowed.find((item) => !item.approval.granted);
  if (denial !== undefined) return { type: "decided", answer: denial.approval, heard, grants };
  // A limit request is not put to a quorum (the policy's quorum is asked of calls): an allowed grant decides.
  if (pending.kind === "limit") return { type: "decided", answer: allowed[0]!.approval, heard, grants };
  const quorum = pending.quorum ?? 1;
  // Under a quorum the grants count in the order they came: those recorded before, then those given now.
  const ordered =
    quorum === 1
      ? allowed
      : [...allowed.filter((item) => item.index !== undefined), ...allowed.filter((item) => item.index === undefined)];
  const counted = countGrants(
    ordered.map((item) => item.approval),
    pending.args,
    quorum,
  );
  if (counted.decides !== undefined) return { type: "decided", answer: counted.decides, heard, grants };
  return { type: "short", grantedBy: counted.grantedBy, heard };
}

/**
 * Counts grants towards a quorum: grants count together only when they carry the same edit (an edit
 * equal to the proposed arguments is no edit), each approver once per group; the first group to
 * reach the quorum decides, by the grant that completed it. `grantedBy` is every approver who
 * granted, once, in order.
 */
export function countGrants(
  grants: readonly Approval[],
  proposed: Json,
  quorum: number,
): { decides: Approval | undefined; grantedBy: string[] } {
  const groups = new Map<string, Set<string>>();
  const grantedBy: string[] = [];
  let decides: Approval | undefined;
  for (const grant of grants) {
    if (!grantedBy.includes(grant.approver)) grantedBy.push(grant.approver);
    if (decides !== undefined) continue;
    const key = editKey(grant.args, proposed);
    const group = groups.get(key) ?? new Set<string>();
    groups.set(key, group);
    group.add(grant.approver);
    if (group.size >= quorum) decides = grant;
  }
  return { decides, grantedBy };
}

/** What groups a grant under a quorum: its edit's canonical JSON, or `""` for no edit. */
function editKey(args: Json | undefined, proposed: Json): string {
  if (args === undefined) return "";
  const edit = canonicalOfJson(args);
  return edit === canonicalOfJson(proposed) ? "" : edit;
}

/**
 * Writes the records of the recorded answers not yet audited when a resume refuses them all
 * (`approver_not_allowed`): claimed like any resume, so a concurrent one that wins writes them
 * instead, and the run stays paused with its answers marked `audited`.
 */
export async function auditRefused(
  core: AgentCore,
  state: RunState,
  trail: readonly AuditRecord[],
  head: AuditHead | null,
  skill: CompiledSkill | undefined,
): Promise<void> {
  const records = leftoverAnswerRecords(core, state, trail);
  if (records.length === 0 || core.store === undefined) return;
  const run = new ActiveRun(core, state, { head, stored: true, skill });
  await run.claim(records, () => {
    state.answers = state.answers.map((answer) => ({ ...answer, audited: true }));
  });
}

/**
 * The records of a resume's claim of a paused run: `run_resumed` naming who decided, then one
 * `approval_answered` for each answer heard and not audited yet.
 */
export function answerClaimRecords(
  pending: ApprovalRequest,
  decided: Extract<DecidedAnswers, { type: "decided" }>,
): [string, unknown][] {
  const { answer, heard } = decided;
  const decision = { approver: answer.approver, granted: answer.granted };
  return [
    ["run_resumed", { reason: "approval", step: pending.step, decidedBy: decision }],
    ...heard.map((item): [string, unknown] => [
      "approval_answered",
      item.index === undefined
        ? {
            step: pending.step,
            accepted: item.allowed,
            ...(item.allowed ? {} : { reason: "approver_not_allowed" }),
            ...item.json,
          }
        : answeredData(pending.step, { index: item.index, json: item.json }, item.allowed),
    ]),
  ];
}
