import type { ApprovalJson, CallApprovalRequest } from "../approvals/approval.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import { isLeashError } from "../errors/index.js";
import type { GrantInfo, GrantUse } from "../stores/grant-info.js";
import type { Step } from "../state/run-state.js";
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
export function grantCall(run: ActiveRun, request: CallApprovalRequest, excluded?: ReadonlySet<string>): GrantCall {
  const { policy } = run.core;
  return {
    request,
    principal: run.state.principal,
    agent: run.core.name,
    now: run.core.clock(),
    mayApprove: (grant, use) => policy.mayApprove(grant.by, structuredClone(request), useOrigin(grant, use)),
    ...(excluded === undefined ? {} : { excluded }),
  };
}

/** The standing grants that would approve this request now (read only: nothing is taken), oldest first. */
export async function grantsFor(run: ActiveRun, request: CallApprovalRequest): Promise<GrantInfo[]> {
  const { store } = run.core;
  if (store?.grants === undefined) return [];
  return matchGrants(await store.grants(), grantCall(run, request), 1);
}

/**
 * Approves a call by the oldest standing grant of the agent's store that matches it (API.md section
 * 16), taking one use, or gives `undefined` when none does. The use is taken atomically with what
 * records it: when the store is the agent's sink, in the checkpoint that saves the step's approval
 * and its `approval_answered` (a crash after it recovers to the approved call, never to a second
 * use); with a separate sink, in a transaction of its own just before that record is made. A use
 * another process took first is tried again on the grants as they are now, so processes racing for
 * k uses take exactly k; a use is never given back, whatever the call then does.
 */
export async function approveByGrant(
  run: ActiveRun,
  step: Step,
  tool: Tool,
  request: CallApprovalRequest,
): Promise<ApprovalJson | undefined> {
  const { store, storeIsSink } = run.core;
  if (store?.grants === undefined) return undefined;
  const toolDigest = grantToolDigest(tool);
  // Grants whose first use pinned another declaration of the tool: they match nothing here.
  const excluded = new Set<string>();
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const [grant] = matchGrants(await store.grants(), grantCall(run, request, excluded), 1);
    if (grant === undefined) return undefined;
    const use: GrantUse = { grant: grant.id, use: grant.uses + 1, toolDigest };
    const approval: ApprovalJson = { digest: request.digest, granted: true, approver: grant.by };
    const data = { step: step.index, accepted: true, ...approval, origin: useOrigin(grant, use.use) };
    try {
      if (storeIsSink) {
        const record = run.record("approval_answered", data);
        step.approval = approval;
        try {
          await run.checkpoint({ grantUse: use });
        } catch (error) {
          if (useRefusedBy(error) === undefined) throw error;
          run.takeBack(record);
          delete step.approval;
          throw error;
        }
      } else {
        if (store.takeGrantUse === undefined) return undefined;
        await store.takeGrantUse(use);
        run.record("approval_answered", data);
      }
      return approval;
    } catch (error) {
      const reason = useRefusedBy(error);
      if (reason === undefined) throw error;
      if (reason === "redefined") excluded.add(grant.id);
    }
  }
  return undefined;
}
