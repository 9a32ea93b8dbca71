import { isLeashError, LeashError, StateError, checkOptionKeys } from "../errors/index.js";
import type { AgentCore } from "../run/agent-core.js";
import { checkRunId, prepareRun } from "../run/start-run.js";
import type { RunState } from "../state/run-state.js";
import type { GateOptions } from "./gate-options.js";
import { buildGateCore } from "./gate-options.js";
import type { GateSessionOptions } from "./gate-session.js";
import { GateSession } from "./gate-session.js";
import { GateApproverAnswers } from "./gate-approver.js";

/**
 * leash's gates for a loop leash does not drive: each tool call another framework's loop makes goes
 * through the policy, scopes, guards, limits and approvals, runs at most once per call id, and is
 * recorded in the session's audit trail and store.
 *
 * @example
 * const gate = new Gate({ tools: [pay], policy: new Policy({ allowEffects: ["read", "write"] }), store });
 * const session = await gate.session("conversation-42", { principal: "mia" });
 * const answer = await session.call("call_1", "pay", { amount: 10 });
 */
export class Gate {
  readonly #core: AgentCore;
  readonly #answers = new GateApproverAnswers();

  constructor(options: GateOptions) {
    this.#core = buildGateCore(options);
  }

  /** The gate's name in guard context and the audit trail. */
  get name(): string {
    return this.#core.name;
  }

  /**
   * The session of `runId`: created (a `run_started` record, state `running`, marked `gate: true`)
   * when the store has no such run, else loaded to go on, in this process or any other. A run id
   * that is a run of an agent, not a gate's session, is refused with `run_exists` and nothing changes.
   *
   * @example const session = await gate.session(conversationId, { goal: "answer the customer" });
   */
  async session(runId: string, options: GateSessionOptions = {}): Promise<GateSession> {
    checkRunId(runId);
    checkOptionKeys(options, ["goal", "principal"], "gate.session(runId, options)");
    const { goal, principal } = options;
    if (goal !== undefined && typeof goal !== "string")
      throw new LeashError("invalid_option", "Expected `goal` to be a string.");
    const found = await this.#existing(runId);
    if (found !== undefined) return found;
    try {
      const run = await prepareRun(this.#core, goal ?? "", {
        runId,
        gate: true,
        ...(principal === undefined ? {} : { principal }),
      });
      return new GateSession(this.#core, run.state, this.#answers);
    } catch (error) {
      // Another process created it at the same moment: that session is this one.
      if (!isLeashError(error, "run_exists")) throw error;
      const again = await this.#existing(runId);
      if (again !== undefined) return again;
      throw error;
    }
  }

  async #existing(runId: string): Promise<GateSession | undefined> {
    const state: RunState | null = await this.#core.store!.load(runId);
    if (state === null) return undefined;
    if (state.gate !== true)
      throw new StateError(
        "run_exists",
        `Run \`${runId}\` exists already and is not a gate's session; a session needs a run id of its own.`,
        { details: { runId } },
      );
    return new GateSession(this.#core, state, this.#answers);
  }
}
