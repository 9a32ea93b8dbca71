// The agent of the approval tests of the command line: it asks to pay, a write that waits for a
// person. Its first request pays 10; once that is denied, it asks again for 10000, with a new digest.
// The goal and the reason are the model's text and may be hostile.
import { Agent, Decision, Policy, tool } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";

/** Options of {@link payAgent}. */
export interface PayAgentOptions {
  /** The model's reason for each request. */
  reason?: string;
  /** A memo passed in the payment's arguments (model text too). */
  memo?: string;
  /** Called with each payment the tool makes. */
  onPay?: (amount: number) => void;
  /** Who may answer its requests (the policy's `mayApprove`); anyone by default. */
  mayApprove?: (approver: string) => boolean;
}

/** An agent on `store` (as store and sink) whose runs wait for approval of a payment. */
export function payAgent(store: RunStore & AuditSink, options: PayAgentOptions = {}): Agent {
  const pay = tool<{ amount: number; memo?: string }>({
    name: "pay",
    parameters: {
      type: "object",
      properties: { amount: { type: "number" }, memo: { type: "string" } },
      required: ["amount"],
    },
    effect: "write",
    execute: ({ amount }) => {
      options.onPay?.(amount);
      return `paid ${amount}`;
    },
  });
  const reason = options.reason === undefined ? {} : { reason: options.reason };
  const memo = options.memo === undefined ? {} : { memo: options.memo };
  return new Agent({
    tools: [pay],
    planner: (state) => {
      const last = state.steps.at(-1);
      if (last === undefined) return Decision.act("pay", { amount: 10, ...memo }, reason);
      if (last.outcome === "approval_denied" && state.steps.length === 1)
        return Decision.act("pay", { amount: 10000, ...memo }, reason);
      return Decision.finish(last.outcome);
    },
    policy: new Policy({
      allowEffects: ["read", "write"],
      ...(options.mayApprove === undefined ? {} : { mayApprove: options.mayApprove }),
    }),
    store,
    audit: store,
  });
}
