import { Approval } from "../approvals/approval.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { isLeashError, LeashError, StateError } from "../errors/index.js";
import { MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import { RunState } from "../state/run-state.js";
import type { RecordedAnswer, Step } from "../state/run-state.js";
import type { AgentCore, CompiledSkill } from "./agent-core.js";
import { ActiveRun } from "./active-run.js";
import { answeredData, leftoverAnswerRecords, lostApprovalRecords, unauditedAnswers } from "./audit-answers.js";
import { withdrawCall } from "./withdrawn-call.js";

/** Options of `agent.resume`. */
export interface ResumeOptions {
  /** Answers to the pending request; answers recorded in the store (`store.answer`) count too. */
  approvals?: Approval[];
}

/** The most starts an idempotent call gets across crashes before its step is `interrupted`. */
export const MAX_STARTS = 3;

/** What a resume found and may go on with. */
export type ResumePlan =
  | { type: "unchanged"; state: RunState }
  | { type: "approval"; run: ActiveRun; step: Step; answer: Approval }
  | { type: "recovery"; run: ActiveRun; step: Step | undefined };

async function resolveState(
  core: AgentCore,
  target: string | RunState,
): Promise<{ state: RunState; fromStore: boolean }> {
  const { store } = core;
  if (typeof target === "string") {
    if (store === undefined) {
      throw new StateError(
        "run_not_found",
        `Run \`${target}\` cannot be found: this agent has no store. Pass the paused state itself, or give the agent a store.`,
        {
          details: { runId: target },
        },
      );
    }
    const state = await store.load(target);
    if (state === null)
      throw new StateError("run_not_found", `No run \`${target}\` in the store.`, { details: { runId: target } });
    return { state, fromStore: true };
  }
  if (typeof target !== "object" || target === null || typeof (target as { toJSON?: unknown }).toJSON !== "function") {
    throw new LeashError("invalid_option", "Expected a run id or a RunState to resume.");
  }
  // The caller's copy is never changed: resume works on its own.
  const copy = RunState.fromJSON(target.toJSON());
  if (store === undefined) return { state: copy, fromStore: false };
  const stored = await store.load(copy.runId);
  if (stored === null)
    throw new StateError("run_not_found", `No run \`${copy.runId}\` in the store.`, { details: { runId: copy.runId } });
  if (copy.revision !== stored.revision) {
    throw new StateError(
      "stale_state",
      `This copy of run \`${copy.runId}\` is at revision ${copy.revision}, but the store holds revision ${stored.revision}: resume the stored state (by its id).`,
      { details: { runId: copy.runId, copy: copy.revision, stored: stored.revision } },
    );
  }
  return { state: stored, fromStore: true };
}

function holdsHead(trail: readonly AuditRecord[], head: AuditHead | null): boolean {
  if (head === null) return true;
  const record = trail[head.seq];
  if (record?.seq === head.seq && record.digest === head.digest) return true;
  return trail.some((item) => item.seq === head.seq && item.digest === head.digest);
}

/** An answer a resume heard, and whether the policy lets its approver answer. */
interface HeardAnswer {
  json: RecordedAnswer;
  allowed: boolean;
  /** Its place in `state.answers` when it was recorded in the store (`store.answer`), not given to this resume. */
  index: number | undefined;
}

/**
 * Decides a pending request from every answer to it: those given to this resume and those recorded
 * in the store. Safety first: a denial by an allowed approver wins over every grant; a grant decides
 * only when no allowed approver denied. An answer from someone `policy.mayApprove` refuses decides
 * nothing (it is audited all the same). When mayApprove throws for any answer, nothing is decided:
 * the resume is refused (`approver_check_failed`) and the run stays paused. Returns null when no answer matches the request, and the
 * answers to audit with the claim (the given ones and the recorded ones not audited yet).
 */
function decideAnswers(
  core: AgentCore,
  state: RunState,
  pending: ApprovalRequest,
  approvals: readonly Approval[],
  unaudited: ReadonlySet<number>,
): { answer: Approval; heard: HeardAnswer[] } | null {
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
  const answer = (allowed.find((item) => !item.approval.granted) ?? allowed[0])?.approval;
  if (answer === undefined) {
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
  return { answer, heard };
}

/**
 * Writes the records of the recorded answers not yet audited when a resume refuses them all
 * (`approver_not_allowed`): claimed like any resume, so a concurrent one that wins writes them
 * instead, and the run stays paused with its answers marked `audited`.
 */
async function auditRefused(
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
 * Checks a resume in the order the contract gives (`run_not_found`, `stale_state`, `audit_truncated`,
 * `run_ended`, `stale_state` for approvals to a run that awaits none, `already_resumed`) and claims
 * the run. Nothing is written when a check refuses or when no answer matches the pending request.
 */
export async function planResume(
  core: AgentCore,
  target: string | RunState,
  options: ResumeOptions,
  skillOf: (name: string | undefined) => CompiledSkill | undefined,
): Promise<ResumePlan> {
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the resume options to be an object.");
  const given = options.approvals ?? [];
  if (!Array.isArray(given)) throw new LeashError("invalid_option", "Expected `approvals` to be an array of Approval.");
  // Each rebuilt from one read of its fields: an Approval (or a Proxy of one) may not answer the same twice.
  const approvals = given.map((item: unknown) => Approval.fromJSON(item));

  const resolved = await resolveState(core, target);
  const { fromStore } = resolved;
  let { state } = resolved;
  const { runId } = state;
  const trail = await core.audit.read(runId);
  // A caller with neither a store nor a shared sink holds its copies itself: a sink that has never
  // seen the run cannot check it, and the resume goes on from the copy's head. Anywhere else a trail
  // without the state's head was cut or replaced.
  const unseen = trail.length === 0 && core.store === undefined;
  if (!unseen && !holdsHead(trail, state.auditHead)) {
    throw new StateError(
      "audit_truncated",
      `The audit trail of run \`${runId}\` lacks the record the state points at (seq ${state.auditHead?.seq}): the trail was cut or replaced.`,
      { details: { runId, head: state.auditHead } },
    );
  }
  if (ENDED_STATUSES.has(state.status)) {
    throw new StateError("run_ended", `Run \`${runId}\` has ended (${state.status}); it cannot be resumed.`, {
      details: { runId, status: state.status },
    });
  }
  if (approvals.length > 0 && state.status !== "awaiting_approval") {
    throw new StateError(
      "stale_state",
      `Run \`${runId}\` is ${state.status}, not awaiting approval: the answers are for a request no longer pending.`,
      {
        details: { runId, status: state.status },
      },
    );
  }
  const headSeq = state.auditHead?.seq ?? -1;
  const later = trail.filter((record) => record.seq > headSeq);
  if (later.some((record) => record.event === "run_resumed")) {
    if (!fromStore) {
      throw new StateError(
        "already_resumed",
        `This paused copy of run \`${runId}\` was resumed already (the audit trail says so); an approval runs its action once.`,
        {
          details: { runId },
        },
      );
    }
    const reloaded = core.store === undefined ? null : await core.store.load(runId);
    if (reloaded === null || reloaded.revision !== state.revision) {
      throw new StateError("stale_state", `Run \`${runId}\` was moved by another process since it was loaded.`, {
        details: { runId },
      });
    }
    state = reloaded;
  }
  // With a sink separate from the store a crash can leave the trail ahead of the state: the chain
  // goes on from the trail's last record.
  const last = trail.at(-1);
  const head: AuditHead | null = last === undefined ? state.auditHead : { seq: last.seq, digest: last.digest };
  const skill = skillOf(state.skill);

  if (state.status === "awaiting_approval") {
    const pending = state.pending;
    if (pending === undefined)
      throw new StateError("invalid_state", `Run \`${runId}\` awaits approval but has no pending request.`);
    const unaudited = new Set(unauditedAnswers(state, trail).map((item) => item.index));
    let decided: ReturnType<typeof decideAnswers>;
    try {
      decided = decideAnswers(core, state, pending, approvals, unaudited);
    } catch (error) {
      // Refused: the recorded answers still reach the trail, so none waits unaudited on a later claim.
      if (isLeashError(error, "approver_not_allowed")) await auditRefused(core, state, trail, head, skill);
      throw error;
    }
    if (decided === null) return { type: "unchanged", state };
    const { answer, heard } = decided;
    const step = state.steps[pending.step];
    if (step === undefined) throw new StateError("invalid_state", `Run \`${runId}\` has no step ${pending.step}.`);
    const decision = { approver: answer.approver, granted: answer.granted };
    const records: [string, unknown][] = [
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
    // Checked before the claim: an answer that cannot be recorded (a note that is not well-formed
    // text, say) is refused with `not_json` while nothing has been written.
    for (const [event, data] of records) {
      toJson(data, `the data of audit event \`${event}\``, { maxDepth: MAX_RECORD_DEPTH });
    }
    const run = new ActiveRun(core, state, { head, stored: core.store !== undefined, skill });
    state.status = "running";
    // The answer is saved with the claim: if this process dies between the claim and the call,
    // crash recovery runs the approved call once instead of asking the person again.
    step.approval = answer.toJSON();
    // The recorded answers move to the trail: those the store could not audit when they were given
    // (a separate sink) are audited with the claim, beside the answers given to this resume. They
    // stay in the claimed state until their records are written (a crash in between leaves them to
    // the recovery), and leave it with the checkpoint that follows the records.
    await run.claim(records, () => {
      state.answers = [];
    });
    return { type: "approval", run, step, answer };
  }

  const run = new ActiveRun(core, state, { head, stored: core.store !== undefined, skill });
  const inFlight = state.steps.findLast((step) => step.outcome === null);
  // A trail ahead of the state may say the saved call never started (a cancel landed while its intent
  // was written): it is taken back as it was then, never started again.
  withdrawCall(run, later);
  // Answers a claim kept in the state when it died before their records were written are audited now.
  const leftover = leftoverAnswerRecords(core, state, trail);
  await run.claim(
    [
      ["run_resumed", { reason: "recovery", step: inFlight?.index ?? null }],
      ...leftover,
      ...lostApprovalRecords(state, trail, leftover),
    ],
    () => {
      state.answers = [];
    },
  );
  return { type: "recovery", run, step: inFlight };
}
