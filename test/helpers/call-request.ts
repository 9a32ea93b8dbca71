// The pending request of a state read as a call's, for tests whose runs pause only on calls.
import type { ApprovalRequest, CallApprovalRequest } from "../../src/index.js";

/** The pending request of a state, as a call's; throws when it is a limit's. */
export function callOf(
  state: { pending?: ApprovalRequest | undefined } | null | undefined,
): CallApprovalRequest | undefined {
  const pending = state?.pending;
  if (pending !== undefined && pending.kind !== "call") throw new Error("expected a call request");
  return pending;
}
