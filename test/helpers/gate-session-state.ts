// A real gate's session for the surfaces' tests: a run driven by another framework's loop, `running`
// between calls, with two `pay` calls waiting for a person, made through `Gate` on the given store.
import { Gate, Policy, tool } from "../../src/index.js";
import type { ApprovalRequest, GateSession, RunState, RunStoreWithAudit } from "../../src/index.js";

/** The call ids of the two waiting calls, the second with characters a terminal must not act on. */
export const FIRST_CALL = "call_a";
export const SECOND_CALL = "call_b\u001b[2K";

/** A gate whose `pay` needs a person, and how many payments ran. */
export function payGate(store: RunStoreWithAudit): { gate: Gate; paid: number[] } {
  const paid: number[] = [];
  const pay = tool<{ amount: number }>({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    execute: ({ amount }) => {
      paid.push(amount);
      return { paid: amount };
    },
  });
  return { gate: new Gate({ tools: [pay], store, policy: new Policy({ allowEffects: ["read", "write"] }) }), paid };
}

/** A gate session of two waiting calls: `pay` 10 (step 0, {@link FIRST_CALL}) and `pay` 25 (step 1, {@link SECOND_CALL}). */
export async function saveGateSession(
  store: RunStoreWithAudit,
  runId: string,
): Promise<{ state: RunState; waiting: ApprovalRequest[]; session: GateSession; paid: number[] }> {
  const { gate, paid } = payGate(store);
  const session = await gate.session(runId, { goal: "pay two bills" });
  for (const [callId, amount] of [
    [FIRST_CALL, 10],
    [SECOND_CALL, 25],
  ] as const) {
    const answer = await session.call(callId, "pay", { amount });
    if (answer.status !== "awaiting_approval") throw new Error(`the gate did not wait on ${callId}: ${answer.status}`);
  }
  const state = await store.load(runId);
  if (state === null || state.waiting?.length !== 2) throw new Error("the session does not wait on two calls");
  return { state, waiting: state.waiting, session, paid };
}
