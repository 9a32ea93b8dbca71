import type { ApprovalJson, ApprovalRequest, Approver } from "../approvals/approval.js";
import { Approval } from "../approvals/approval.js";

/** How many answers a gate keeps for calls not made yet; past it the oldest is dropped (and asked again). */
const MAX_KEPT = 256;

/**
 * The answers a gate's approver callable gave while `session.needsApproval` asked, kept in the process
 * for the `session.call` of the same request, so that the approver is asked once per call. A
 * framework asks `needsApproval` and then calls the tool; `needsApproval` records nothing when the
 * approver answers (no person need answer then), so `call` asks the approval gate again, and hears
 * the kept answer instead of asking the approver twice (an approver that asks someone in a chat
 * would ask them twice). An answer is kept under its request's digest, which binds the run, the step,
 * the exact action and the history: a call whose request has another digest (an earlier call settled
 * in between) finds nothing kept and asks the approver, as it must. A kept answer is given once.
 */
export class GateApproverAnswers {
  readonly #kept = new Map<string, ApprovalJson>();

  /** The approver for `needsApproval`: asks `approver`, and keeps an answer to this request for the call. */
  asking(approver: Approver): Approver {
    return async (request) => {
      const given = await approver(request);
      this.#keep(request, given);
      return given;
    };
  }

  /** The approver for `call`: the answer kept for this request (once), else `approver`'s. */
  answering(approver: Approver): Approver {
    return (request) => {
      const kept = this.#kept.get(request.digest);
      if (kept === undefined) return approver(request);
      this.#kept.delete(request.digest);
      return Approval.fromJSON(kept);
    };
  }

  #keep(request: ApprovalRequest, given: unknown): void {
    if (given === null || given === undefined) return;
    let answer: ApprovalJson;
    try {
      // One read of each field, now: what the call hears is what the approval gate judged here.
      answer = Approval.fromJSON(given).toJSON();
    } catch {
      // An answer that is no approval leaves the call waiting for a person; nothing to keep.
      return;
    }
    if (answer.digest !== request.digest) return;
    this.#kept.delete(request.digest);
    this.#kept.set(request.digest, answer);
    if (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
  }
}
