import { setTimeout as sleep } from "node:timers/promises";
import type { Usage } from "../decisions/decision.js";
import { MAX_USAGE } from "../decisions/decision.js";
import { LeashError, StateError, isLeashError } from "../errors/index.js";
import type { StopReason } from "../limits/limits.js";
import { ActiveRun } from "../run/active-run.js";
import type { AgentCore } from "../run/agent-core.js";
import { containFailure } from "../run/contain-failure.js";
import { budgetModelReached, modelLimitReached } from "../run/limit-checks.js";
import { endRun } from "../run/run-loop.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { Failure, RunState } from "../state/run-state.js";
import { detachedCopy } from "../state/run-state.js";
import type { GateCallAnswer } from "./gate-answer.js";
import { endedAnswer } from "./gate-answer.js";
import type { Attempt } from "./gate-call.js";
import { callAttempt, needsApprovalAttempt } from "./gate-call.js";
import type { Toolset } from "../tools/toolset.js";
import { keepCallEnd } from "./gate-rebase.js";
import { GateApproverAnswers } from "./gate-approver.js";
import type { GateCallOptions, GateCharge } from "./gate-input.js";
import { checkCall, checkCharge } from "./gate-input.js";

export type { GateCallOptions, GateCharge, GateSessionOptions } from "./gate-input.js";

/** What `session.charge` gives: the usage so far, or the session's end when the charge ended it. */
export type GateChargeAnswer =
  | { status: "charged"; usage: Usage }
  | { status: "stopped"; reason: StopReason }
  | { status: "failed"; failure: Failure };

/** The last operation queued for each run of each gate in this process: the next one starts after it settles. */
const SESSION_QUEUES = new WeakMap<object, Map<string, Promise<unknown>>>();

/** How many times an operation goes on after losing a save to another process of the same session. */
const MAX_ATTEMPTS = 50;
/** How long a call waits for another process to end a call it runs, before giving up with `stale_state`. */
const WAIT_MS = 60_000;

/**
 * One session of a gate: a leash run whose calls come from the app's own loop, one step each,
 * serialized in this process. Get one with `gate.session(runId)`.
 *
 * @example
 * const answer = await session.call("call_1", "pay", { amount: 10 });
 * if (answer.status === "awaiting_approval") console.log("ask", answer.request.digest);
 */
export class GateSession {
  /** The session's run id. */
  readonly runId: string;
  readonly #core: AgentCore;
  /** The core `call` runs on: its approver hears first the answer `needsApproval` kept for the request. */
  readonly #calling: AgentCore;
  /** The core `needsApproval` runs on: its approver keeps its answer for the call. */
  readonly #asking: AgentCore;
  #state: RunState;

  /** @internal Use `gate.session(runId)`. */
  constructor(core: AgentCore, state: RunState, answers: GateApproverAnswers = new GateApproverAnswers()) {
    this.#core = core;
    const { approver } = core;
    this.#calling = approver === undefined ? core : { ...core, approver: answers.answering(approver) };
    this.#asking = approver === undefined ? core : { ...core, approver: answers.asking(approver) };
    this.#state = state;
    this.runId = state.runId;
  }

  /** The gate's tools, as the adapters of `leash/ai-sdk` and `leash/openai-agents` list them. */
  get tools(): Toolset {
    return this.#core.tools;
  }

  /** A copy of the session's run as this session last saw it (after its last operation). */
  get state(): RunState {
    return detachedCopy(this.#state);
  }

  /** Reads the session's run from the store again (what other processes did since), after queued operations. */
  load(): Promise<RunState> {
    return this.#enqueue(async () => {
      this.#state = await this.#open().then((run) => run.state);
      return detachedCopy(this.#state);
    });
  }

  /**
   * Takes one call of the app's loop through every gate of leash, in order: the tool exists, its
   * arguments are valid, its effect is allowed, its scopes granted, the guards' `beforeTool`, the
   * limits, the approval; then runs it once. The same call id again gives that call's answer.
   *
   * @example const answer = await session.call(toolCallId, "pay", { amount: 10 }, { reason: "invoice 2041" });
   */
  async call(callId: string, tool: string, args: unknown, options: GateCallOptions = {}): Promise<GateCallAnswer> {
    const input = checkCall(callId, tool, args, options);
    return this.#enqueue(() => this.#attempt((run, raced) => callAttempt(run, input, raced), endedAnswer));
  }

  /**
   * Whether a person must still answer this call: true records its request (as `call` would, so a
   * later `call` of the same id finds it); false records nothing. A call asked of a person before
   * answers true, even once answered: `call` then decides. The gate's approver callable, if any, is
   * asked here: when it answers, no person need, and the `call` that follows in this process hears
   * the same answer rather than asking the approver again.
   */
  async needsApproval(callId: string, tool: string, args: unknown): Promise<boolean> {
    const input = checkCall(callId, tool, args, {});
    return this.#enqueue(() =>
      this.#attempt(
        async (run) => ({ type: "done", value: await needsApprovalAttempt(run, input) }),
        () => false,
        this.#asking,
      ),
    );
  }

  /**
   * Charges a model call the app's framework made: a `model_called` record, its usage added to the
   * session's and taken from its shared budget. Once the usage reaches `maxTokens` or `maxCost` (or
   * the budget's spend its own), no model may be called any more (sections 4 and 17), so the charge
   * ends the session `stopped` and says so. Bad values throw
   * `invalid_option` at once (nothing is queued); a charge not awaited never crashes the process.
   */
  charge(usage: GateCharge): Promise<GateChargeAnswer> {
    const charge = checkCharge(usage);
    const ended = (state: RunState): GateChargeAnswer => endedAnswer(state) as GateChargeAnswer;
    const answer = this.#enqueue(() =>
      this.#attempt(async (run): Promise<Attempt<GateChargeAnswer>> => {
        const { state } = run;
        if (ENDED_STATUSES.has(state.status)) return { type: "done", value: ended(state) };
        state.usage.tokens = Math.min(MAX_USAGE, state.usage.tokens + charge.tokens);
        state.usage.cost = Math.min(MAX_USAGE, state.usage.cost + charge.cost);
        // Taken from the session's shared budget with the save that records it, whatever it makes.
        run.chargeBudget({ tokens: charge.tokens, cost: charge.cost });
        run.record("model_called", {
          model: charge.model ?? null,
          usage: { tokens: charge.tokens, cost: charge.cost },
          charged: "gate",
        });
        // The session's own limits first; then its shared budget, this charge counted.
        const reached = modelLimitReached(run) ?? (await budgetModelReached(run));
        if (reached !== undefined)
          return { type: "done", value: ended(await endRun(run, { status: "stopped", reason: reached })) };
        await run.checkpoint();
        return { type: "done", value: { status: "charged", usage: { ...state.usage } } };
      }, ended),
    );
    // A charge the app does not await must not crash the process when it fails: its caller, if any, still hears of it.
    answer.catch(() => undefined);
    return answer;
  }

  /**
   * Ends the session `completed`, with `answer` as its answer. Calls still waiting for a person are
   * closed `stopped` (a `step_denied` record each): nobody can approve them any more. Ending a
   * session that completed already gives its state again; one that stopped or failed is `run_ended`.
   */
  async end(answer?: string): Promise<RunState> {
    if (answer !== undefined && (typeof answer !== "string" || !answer.isWellFormed()))
      throw new LeashError("invalid_option", "Expected the session's answer to be well-formed text.");
    return this.#enqueue(() =>
      this.#attempt(
        async (run): Promise<Attempt<RunState>> => {
          const { state } = run;
          if (state.status === "completed") return { type: "done", value: detachedCopy(state) };
          if (ENDED_STATUSES.has(state.status))
            throw new StateError(
              "run_ended",
              `Session \`${state.runId}\` has ended ${state.status}; it cannot be ended completed.`,
              { details: { runId: state.runId, status: state.status } },
            );
          return { type: "done", value: await endRun(run, { status: "completed", answer: answer ?? null }) };
        },
        (state) => state,
      ),
    );
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    // One queue per run of this gate, whatever session object asks: two objects of one session (one
    // per request of a server, say) never run a call beside each other. (Two gates over one store
    // are as two processes: a save lost to the other is taken again.)
    let queues = SESSION_QUEUES.get(this.#core);
    if (queues === undefined) {
      queues = new Map();
      SESSION_QUEUES.set(this.#core, queues);
    }
    const tail = queues.get(this.runId) ?? Promise.resolve();
    const result = tail.then(operation);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(this.runId, settled);
    void settled.then(() => {
      if (queues.get(this.runId) === settled) queues.delete(this.runId);
    });
    return result;
  }

  async #open(core: AgentCore = this.#calling): Promise<ActiveRun> {
    const { store } = core;
    const state = await store!.load(this.runId);
    if (state === null)
      throw new StateError("run_not_found", `No session \`${this.runId}\` in the store.`, {
        details: { runId: this.runId },
      });
    if (state.gate !== true)
      throw new StateError("run_exists", `Run \`${this.runId}\` is not a gate's session.`, {
        details: { runId: this.runId },
      });
    return new ActiveRun(core, state, { head: state.auditHead, stored: true, skill: undefined });
  }

  /**
   * Runs one operation on the session's run as stored now, trying again on the run as it is then
   * when a save was lost to another process (nothing this attempt wrote is kept), and waiting while
   * another process runs the call. Whatever else is thrown once something was written ends the run
   * `failed` (`internal_error`), saved; a refusal before any write changes nothing.
   */
  async #attempt<T>(
    body: (run: ActiveRun, raced: boolean) => Promise<Attempt<T>>,
    contained: (state: RunState) => T,
    core: AgentCore = this.#calling,
  ): Promise<T> {
    let raced = false;
    let pause = 2;
    const deadline = Date.now() + WAIT_MS;
    for (let attempt = 1; ; attempt += 1) {
      const run = await this.#open(core);
      const loaded = run.state.revision;
      let result: Attempt<T>;
      try {
        result = await body(run, raced);
      } catch (error) {
        if (isLeashError(error, "stale_state") && run.checkpointFailed && attempt < MAX_ATTEMPTS) {
          // A tool that ran keeps its end; anything else this attempt made is dropped and made again.
          await keepCallEnd(this.#core, run);
          raced = true;
          await sleep(Math.floor(Math.random() * 5 * Math.min(attempt, 10)));
          continue;
        }
        // A refusal (a call id given again with other arguments, say) before anything was saved.
        if (error instanceof StateError && !run.checkpointFailed && run.state.revision === loaded) throw error;
        const ended = await containFailure(run, error);
        this.#state = ended;
        return contained(ended);
      }
      this.#state = run.state;
      if (result.type === "done") return result.value;
      if (Date.now() > deadline)
        throw new StateError(
          "stale_state",
          `A call of session \`${this.runId}\` is running in another process and did not end within ${WAIT_MS / 1000} s.`,
          { details: { runId: this.runId } },
        );
      await sleep(pause);
      pause = Math.min(pause * 2, 200);
    }
  }
}
