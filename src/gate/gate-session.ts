import { setTimeout as sleep } from "node:timers/promises";
import type { Usage } from "../decisions/decision.js";
import { MAX_CALL_ID_LENGTH, MAX_REASON_LENGTH, MAX_USAGE } from "../decisions/decision.js";
import { LeashError, StateError, checkOptionKeys, isLeashError } from "../errors/index.js";
import { toJson } from "../json/index.js";
import type { StopReason } from "../limits/limits.js";
import { ActiveRun } from "../run/active-run.js";
import type { AgentCore } from "../run/agent-core.js";
import { containFailure } from "../run/contain-failure.js";
import { modelLimitReached } from "../run/limit-checks.js";
import { endRun } from "../run/run-loop.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { Failure, RunState } from "../state/run-state.js";
import { detachedCopy } from "../state/run-state.js";
import type { GateCallAnswer } from "./gate-answer.js";
import { endedAnswer } from "./gate-answer.js";
import type { Attempt, GateCallInput } from "./gate-call.js";
import { callAttempt, needsApprovalAttempt } from "./gate-call.js";
import { keepCallEnd } from "./gate-rebase.js";

/** Options of `gate.session(runId, options)`: used when the session is created, kept as first given. */
export interface GateSessionOptions {
  /** What the session is for (the run's goal); default "". */
  goal?: string;
  /** The person the session's calls run as. */
  principal?: string;
}

/** Options of `session.call`. */
export interface GateCallOptions {
  /** Why the loop makes the call: shown to the person asked to approve it. */
  reason?: string;
}

/** What `session.charge` gives: the usage so far, or the session's end when the charge ended it. */
export type GateChargeAnswer =
  | { status: "charged"; usage: Usage }
  | { status: "stopped"; reason: StopReason }
  | { status: "failed"; failure: Failure };

/** A model call the app's framework made, for `session.charge`. */
export interface GateCharge {
  tokens: number;
  cost: number;
  /** The model's name, kept in the `model_called` record. */
  model?: string;
}

/** How many times an operation goes on after losing a save to another process of the same session. */
const MAX_ATTEMPTS = 50;
/** How long a call waits for another process to end a call it runs, before giving up with `stale_state`. */
const WAIT_MS = 60_000;

const fail = (message: string): never => {
  throw new LeashError("invalid_option", message);
};

/** Checks a call as given by the app's loop, before anything is read or written. */
function checkCall(callId: unknown, tool: unknown, args: unknown, options: unknown): GateCallInput {
  if (typeof callId !== "string" || callId === "" || callId.length > MAX_CALL_ID_LENGTH || !callId.isWellFormed())
    fail(`Expected the call id to be a non-empty string of at most ${MAX_CALL_ID_LENGTH} characters.`);
  if (typeof tool !== "string" || tool === "") fail("Expected the tool to be a tool's name.");
  checkOptionKeys(options, ["reason"], "session.call(..., options)");
  const reason = (options as GateCallOptions | undefined)?.reason;
  if (
    reason !== undefined &&
    (typeof reason !== "string" || reason.length > MAX_REASON_LENGTH || !reason.isWellFormed())
  )
    fail(`Expected \`reason\` to be well-formed text of at most ${MAX_REASON_LENGTH} characters.`);
  const input: GateCallInput = {
    callId: callId as string,
    tool: tool as string,
    args: toJson(args, "the arguments of the call"),
  };
  if (reason !== undefined) input.reason = reason;
  return input;
}

function checkCharge(charge: unknown): GateCharge {
  if (typeof charge !== "object" || charge === null || Array.isArray(charge))
    fail("Expected `session.charge(usage)` to be given `{ tokens, cost, model? }`.");
  checkOptionKeys(charge, ["tokens", "cost", "model"], "session.charge(usage)");
  const { tokens, cost, model } = charge as GateCharge;
  if (!Number.isSafeInteger(tokens) || tokens < 0) fail("Expected `tokens` to be a non-negative integer.");
  if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0)
    fail("Expected `cost` to be a non-negative finite number.");
  if (model !== undefined && (typeof model !== "string" || model === "" || !model.isWellFormed()))
    fail("Expected `model` to be a non-empty string.");
  return model === undefined ? { tokens, cost } : { tokens, cost, model };
}

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
  /** The last operation queued: the next one starts after it settles. */
  #tail: Promise<unknown> = Promise.resolve();
  #state: RunState;

  /** @internal Use `gate.session(runId)`. */
  constructor(core: AgentCore, state: RunState) {
    this.#core = core;
    this.#state = state;
    this.runId = state.runId;
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
   * answers true, even once answered: `call` then decides.
   */
  async needsApproval(callId: string, tool: string, args: unknown): Promise<boolean> {
    const input = checkCall(callId, tool, args, {});
    return this.#enqueue(() =>
      this.#attempt(
        async (run) => ({ type: "done", value: await needsApprovalAttempt(run, input) }),
        () => false,
      ),
    );
  }

  /**
   * Charges a model call the app's framework made: a `model_called` record, its usage added to the
   * session's. Once the usage reaches `maxTokens` or `maxCost`, no model may be called any more
   * (section 4), so the charge ends the session `stopped` and says so. Bad values throw
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
        run.record("model_called", {
          model: charge.model ?? null,
          usage: { tokens: charge.tokens, cost: charge.cost },
          charged: "gate",
        });
        const reached = modelLimitReached(run);
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
          if (ENDED_STATUSES.has(state.status)) endedAnswer(state);
          return { type: "done", value: await endRun(run, { status: "completed", answer: answer ?? null }) };
        },
        (state) => state,
      ),
    );
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(operation);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  async #open(): Promise<ActiveRun> {
    const { store } = this.#core;
    const state = await store!.load(this.runId);
    if (state === null)
      throw new StateError("run_not_found", `No session \`${this.runId}\` in the store.`, {
        details: { runId: this.runId },
      });
    if (state.gate !== true)
      throw new StateError("run_exists", `Run \`${this.runId}\` is not a gate's session.`, {
        details: { runId: this.runId },
      });
    return new ActiveRun(this.#core, state, { head: state.auditHead, stored: true, skill: undefined });
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
  ): Promise<T> {
    let raced = false;
    let pause = 2;
    const deadline = Date.now() + WAIT_MS;
    for (let attempt = 1; ; attempt += 1) {
      const run = await this.#open();
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
