import type { ApprovalJson, CallApprovalRequest } from "../approvals/approval.js";
import { Approval } from "../approvals/approval.js";
import type { AuditSink } from "../audit/audit-sink.js";
import { recordGrantAnswer } from "../stores/record-answer.js";
import type { RunStore } from "../stores/run-store.js";
import type { Toolset } from "../tools/toolset.js";
import type { AgentCore } from "./agent-core.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import { isLeashError } from "../errors/index.js";
import type { GrantInfo, GrantUse } from "../stores/grant-info.js";
import type { RunState, Step } from "../state/run-state.js";
import type { Tool } from "../tools/tool.js";
import type { ActiveRun } from "./active-run.js";
import { grantToolDigest, matchGrants } from "./grant-match.js";
import type { GrantCall } from "./grant-match.js";

/** How often a use lost to another process is tried again on the grants as they are now. */
const MAX_ATTEMPTS = 20;

/** The origin a standing grant's use is recorded and judged with. */
function useOrigin(grant: GrantInfo, use: number): AnswerOrigin {
  return { via: "grant", grant: grant.id, use };
}

/** Whether a store refused a grant's use (another process took it, the grant was revoked or is bound elsewhere). */
function useRefusedBy(error: unknown): string | undefined {
  if (!isLeashError(error, "stale_state") || typeof error.details.grant !== "string") return undefined;
  return String(error.details.reason);
}

/** What a call offers the store's grants: the request, who the run works for, the agent's clock and policy. */
export function grantCall(
  core: AgentCore,
  principal: string | undefined,
  request: CallApprovalRequest,
  excluded?: ReadonlySet<string>,
): GrantCall {
  const { policy } = core;
  return {
    request,
    principal,
    agent: core.name,
    now: core.clock(),
    mayApprove: (grant, use) => policy.mayApprove(grant.by, structuredClone(request), useOrigin(grant, use)),
    ...(excluded === undefined ? {} : { excluded }),
  };
}

/** The standing grants that would approve this request now (read only: nothing is taken), oldest first, at most `needed` of distinct givers. */
export async function grantsFor(run: ActiveRun, request: CallApprovalRequest, needed = 1): Promise<GrantInfo[]> {
  const { store } = run.core;
  if (store?.grants === undefined) return [];
  return matchGrants(await store.grants(), grantCall(run.core, run.state.principal, request), needed);
}

/**
 * Approves a call by standing grants of the agent's store (API.md section 16): by the oldest grant
 * that matches it, or, under a quorum above one, by as many grants of distinct givers as the quorum,
 * oldest first; or by none, giving `undefined`. Every use is taken in one save with the step's
 * approval, so either all are taken or none is: when the store is the agent's sink, with each use's
 * `approval_answered` too (a crash after it recovers to the approved call, never to a second use);
 * with a separate sink, the records follow in the next checkpoint (a crash in between leaves the
 * approval for recovery to record). A use another process took first is tried again on the grants
 * as they are now, so processes racing for k uses take exactly k; a use is never given back,
 * whatever the call then does. When fewer grants than the quorum match, nothing is taken: the run
 * pauses for its people, and the grants that match are recorded as answers once the pause is
 * durable ({@link recordGrantAnswers}).
 */
export async function approveByGrants(
  run: ActiveRun,
  step: Step,
  tool: Tool,
  request: CallApprovalRequest,
): Promise<ApprovalJson | undefined> {
  const { store, storeIsSink } = run.core;
  const quorum = request.quorum ?? 1;
  if (store?.grants === undefined) return undefined;
  const toolDigest = grantToolDigest(tool);
  // Grants whose first use pinned another declaration of the tool: they match nothing here.
  const excluded = new Set<string>();
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const call = grantCall(run.core, run.state.principal, request, excluded);
    const grants = matchGrants(await store.grants(), call, quorum);
    if (grants.length < quorum) return undefined;
    const uses: GrantUse[] = grants.map((grant) => ({ grant: grant.id, use: grant.uses + 1, toolDigest }));
    const answers = grants.map((grant, index) => {
      const approval: ApprovalJson = { digest: request.digest, granted: true, approver: grant.by };
      const data = { step: step.index, accepted: true, ...approval, origin: useOrigin(grant, uses[index]!.use) };
      return { approval, data };
    });
    // The last use completes the quorum: it is the answer the step keeps, as a resume keeps the
    // grant that met the quorum.
    const decisive = answers.at(-1)!.approval;
    step.approval = decisive;
    try {
      if (storeIsSink) {
        const records = answers.map((answer) => run.record("approval_answered", answer.data));
        try {
          await run.checkpoint({ grantUses: uses });
        } catch (error) {
          if (useRefusedBy(error) !== undefined) for (const record of records.reverse()) run.takeBack(record);
          throw error;
        }
      } else {
        await run.checkpoint({ grantUses: uses });
        for (const answer of answers) run.record("approval_answered", answer.data);
      }
      return decisive;
    } catch (error) {
      delete step.approval;
      const reason = useRefusedBy(error);
      if (reason === undefined) throw error;
      if (reason === "redefined" && isLeashError(error)) excluded.add(String(error.details.grant));
    }
  }
  return undefined;
}

/**
 * Records, as answers to a paused call under a quorum above one, the standing grants that match it
 * now: oldest first, each of a giver who has not answered this request, until the answers recorded
 * would meet the quorum (a resume then decides on them) or no grant matches. Each is recorded as
 * `store.answer` records a person's answer (`{ via: "grant", grant, use }` its origin), its use taken
 * in the same save. Nothing is recorded once an answer denies the request. Gives the run as stored
 * after the last answer recorded, or `undefined` when none was.
 */
export async function recordGrantAnswers(
  core: AgentCore,
  runId: string,
  tools: Toolset,
): Promise<RunState | undefined> {
  const { store } = core;
  if (store?.grants === undefined) return undefined;
  let recorded: RunState | undefined;
  const excluded = new Set<string>();
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const state = await store.load(runId);
    const request = state?.pending;
    if (state === null || state.status !== "awaiting_approval" || request?.kind !== "call") return recorded;
    const quorum = request.quorum ?? 1;
    const answers = state.answers.filter((answer) => answer.digest === request.digest);
    if (quorum <= 1 || answers.some((answer) => !answer.granted)) return recorded;
    const answeredBy = new Set(answers.map((answer) => answer.approver));
    if (answeredBy.size >= quorum) return recorded;
    const tool = tools.get(request.tool);
    if (tool === undefined) return recorded;
    const call = grantCall(core, state.principal, request, excluded);
    const unanswered = (await store.grants()).filter((grant) => !answeredBy.has(grant.by));
    const [grant] = matchGrants(unanswered, call, 1);
    if (grant === undefined) return recorded;
    const use: GrantUse = { grant: grant.id, use: grant.uses + 1, toolDigest: grantToolDigest(tool) };
    try {
      recorded = await recordGrantAnswer(
        store as RunStore & AuditSink,
        runId,
        new Approval(request.digest, { granted: true, approver: grant.by }),
        use,
      );
    } catch (error) {
      const reason = useRefusedBy(error);
      if (reason === undefined) throw error;
      if (reason === "redefined") excluded.add(grant.id);
    }
  }
  return recorded;
}
