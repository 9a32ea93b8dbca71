// A gate's session as the store holds it, for the surfaces' tests: a run driven by another
// framework's loop, `running` between calls, with two calls waiting for a person. Made from a real
// paused run of the pay agent (its first request and digest), then saved in the gate's saved form
// (`gate: true`, `waiting`), as a session writes it.
import { RunState } from "../../src/index.js";
import type { ApprovalRequest, AuditSink, RunStore } from "../../src/index.js";
import { payAgent } from "../cli/pay-agent.js";

/** The call ids of the two waiting calls, the first with characters a terminal must not act on. */
export const FIRST_CALL = "call_a";
export const SECOND_CALL = "call_b\u001b[2K";

/** A gate session of two waiting calls: `pay` 10 (step 0) and `pay` 25 (step 1). */
export async function saveGateSession(
  store: RunStore & AuditSink,
  runId: string,
): Promise<{ state: RunState; waiting: ApprovalRequest[] }> {
  const paused = await payAgent(store).run("pay two bills", { runId });
  const first = paused.pending;
  if (paused.status !== "awaiting_approval" || first === undefined) throw new Error("the pay agent did not pause");
  const json = paused.toJSON() as unknown as Record<string, unknown> & { steps: Record<string, unknown>[] };
  const step = json.steps[0]!;
  const decision = step.decision as Record<string, unknown>;
  const second: ApprovalRequest = { ...first, step: 1, args: { amount: 25 }, digest: "b".repeat(64) };
  const waiting = [first, second];
  const gate = {
    ...json,
    status: "running",
    gate: true,
    pending: first,
    waiting,
    revision: paused.revision + 1,
    steps: [
      { ...step, decision: { ...decision, callId: FIRST_CALL } },
      { ...step, index: 1, decision: { ...decision, args: { amount: 25 }, callId: SECOND_CALL } },
    ],
  };
  const state = RunState.fromJSON(JSON.stringify(gate));
  await store.save(state, { expectedRevision: paused.revision });
  return { state, waiting };
}
