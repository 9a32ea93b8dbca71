import { hostname } from "node:os";
import { Agent, Approval, Decision, Policy, canonicalJson, isLeashError, toJson } from "../index.js";
import type { AuditSink, Guard, Json, Planner, RunState, RunStore, Tool } from "../index.js";
import type { GatewayConfig } from "./gateway-config.js";
import { rawResults } from "./upstreams.js";
import type { RawSlot, ToolChanges } from "./upstreams.js";
import { SHUTTING_DOWN, Shutdown, until } from "./gateway-shutdown.js";
import type { Stopped } from "./gateway-shutdown.js";
import type { CallResult, GatewayCall } from "./gateway-runs.js";
import {
  RUN_PREFIX,
  answerOf,
  driverMayBeAlive,
  maxArgsChars,
  callKey,
  callOfGoal,
  errorResult,
  goalOf,
  isRunOf,
  newRunId,
  runPrefixOf,
} from "./gateway-runs.js";

/** What a waiting call may do while it waits: say so to the client, and learn that the client gave up. */
export interface CallContext {
  signal?: AbortSignal;
  /** Called while the call waits for a person, with a line that says what to do. */
  progress?: (message: string) => void;
  /**
   * Asks the person at the client (MCP elicitation), when the client can be asked: their answer, or
   * `undefined` when they did not answer.
   */
  ask?: (question: string, signal: AbortSignal) => Promise<{ granted: boolean; note?: string } | undefined>;
}

/** How the gateway's planner runs a call: the call its goal names, then finish with the result. */
const planner: Planner = (state) => {
  if (state.steps.length === 0) {
    const call = callOfGoal(state.goal);
    return Decision.act(call.tool, call.args);
  }
  return Decision.finish(state.steps[0]?.result ?? null);
};

/**
 * leash in front of MCP servers: each call is a run of an agent with the upstream tools, the config's
 * policy and limits, the app's guards and the store. A call that needs approval waits for an answer in
 * the store; a repeated identical call finds the run that waits and resumes it, so it runs once.
 */
export class Gateway {
  readonly agent: Agent;
  readonly #store: RunStore;
  readonly #config: GatewayConfig;
  readonly #tools: Map<string, Tool>;
  readonly #busy = new Map<string, Promise<CallResult>>();
  readonly #dbArgs: string;
  readonly #changes: ToolChanges | undefined;
  readonly #shutdown = new Shutdown();

  /**
   * `changes`, when given, says which tools an upstream no longer lists (left out of {@link tools})
   * and when a re-read changed the tools ({@link onToolsChanged}).
   */
  constructor(
    config: GatewayConfig,
    store: RunStore & AuditSink,
    tools: Tool[],
    guards: Guard[],
    dbArgs: string,
    changes?: ToolChanges,
  ) {
    this.#config = config;
    this.#changes = changes;
    this.#store = store;
    this.#tools = new Map(tools.map((item) => [item.name, item]));
    this.#dbArgs = dbArgs;
    const { approvers } = config.policy;
    this.agent = new Agent({
      name: "leash-mcp-gateway",
      tools,
      planner,
      store,
      audit: store,
      guards,
      limits: config.limits,
      policy: new Policy({
        grantedScopes: config.policy.grantedScopes,
        allowEffects: config.policy.allowEffects,
        ...(config.policy.approvalFor === undefined ? {} : { approvalFor: config.policy.approvalFor }),
        ...(approvers === undefined ? {} : { mayApprove: (approver: string) => approvers.includes(approver) }),
      }),
    });
  }

  /** The tools offered downstream: the upstream tools, with their current definitions, less those no longer listed. */
  get tools(): Tool[] {
    const refused = this.#changes?.refused;
    return [...this.#tools.values()].filter((item) => refused?.has(item.name) !== true);
  }

  /** Calls `listener` after an upstream's tools changed (redefined, no longer listed, back); returns how to stop. */
  onToolsChanged(listener: () => void): () => void {
    return this.#changes?.subscribe(listener) ?? (() => undefined);
  }

  /**
   * Crash recovery: resumes the gateway's runs saved as `running` whose gateway process is gone (a
   * gateway stopped while a call was in flight). An idempotent call starts again; any other is
   * `interrupted`, never run twice. A run another live gateway drives (on this host, or any run
   * started on another host) is left alone. Returns how many runs were recovered and left.
   */
  recover(onRecovered: (state: RunState) => void = () => undefined): Promise<{ recovered: number; left: number }> {
    return this.#shutdown.track(this.#recover(onRecovered));
  }

  async #recover(onRecovered: (state: RunState) => void): Promise<{ recovered: number; left: number }> {
    const running = (await this.#store.list({ status: "running" })).filter((item) => item.runId.startsWith(RUN_PREFIX));
    let recovered = 0;
    for (const state of running) {
      if (this.#shutdown.stopping) break;
      if (driverMayBeAlive(state.runId)) continue;
      try {
        onRecovered(await this.agent.resume(state.runId));
        recovered += 1;
      } catch (error) {
        if (!isLeashError(error)) throw error;
      }
    }
    return { recovered, left: running.length - recovered };
  }

  /** Answers one downstream `tools/call`. Identical calls at once share one run. */
  call(tool: string, given: Record<string, unknown>, context: CallContext = {}): Promise<CallResult> {
    if (this.#shutdown.stopping) return Promise.resolve(errorResult(SHUTTING_DOWN));
    if (!this.#tools.has(tool)) return Promise.resolve(errorResult(`leash: there is no tool \`${tool}\` here.`));
    // A tool its upstream no longer lists is refused before a run asks anyone to approve it.
    if (this.#changes?.refused.has(tool) === true)
      return Promise.resolve(errorResult(`leash: the call did not run: the upstream no longer lists \`${tool}\`.`));
    let args: Record<string, Json>;
    let size: number;
    try {
      // A fresh copy that keeps every own key (a `__proto__` too) and refuses what is not JSON or too deep.
      args = toJson(given, "the call's arguments") as Record<string, Json>;
      size = canonicalJson(args).length;
    } catch (error) {
      if (!isLeashError(error)) throw error;
      return Promise.resolve(errorResult(`leash: the call did not run: ${error.code}: ${error.message}`));
    }
    if (size > maxArgsChars(tool))
      return Promise.resolve(
        errorResult(
          `leash: the call did not run: its arguments are ${size} characters of JSON; a call through the gateway takes at most ${maxArgsChars(tool)} characters (they are kept in the run's goal).`,
        ),
      );
    const call: GatewayCall = { tool, args };
    const key = callKey(call);
    const busy = this.#busy.get(key);
    if (busy !== undefined) return busy;
    const slot: RawSlot = {};
    const work = rawResults
      .run(slot, () => this.#call(call, context, slot))
      // A refusal by leash itself (a goal too large, a run another process moved) is the call's error
      // result, never a protocol error.
      .catch((error: unknown) => {
        if (!isLeashError(error)) throw error;
        return errorResult(`leash: the call did not run: ${error.code}: ${error.message}`);
      })
      .finally(() => this.#busy.delete(key));
    this.#busy.set(key, work);
    return this.#shutdown.track(work);
  }

  /**
   * Stops taking calls (a new one is an error result that says the gateway is shutting down), answers
   * the calls that wait for a person at once (their runs stay waiting in the store), and resolves once
   * the calls being executed have ended, or after `ms`, whichever is first.
   */
  stop(ms: number): Promise<Stopped> {
    return this.#shutdown.stop(ms);
  }

  async #call(call: GatewayCall, context: CallContext, slot: RawSlot): Promise<CallResult> {
    const started = Date.now();
    const waiting = await this.#firstWaiting(call);
    let state = waiting ?? (await this.agent.run(goalOf(call), { runId: newRunId(call) }));
    const mine = waiting === undefined ? state.runId : undefined;
    let answered = -1;
    const asking = new AbortController();
    let asked: string | undefined;
    try {
      // Until the run ends: it waits for a person, or another gateway on the same store is running it.
      while (state.status === "awaiting_approval" || state.status === "running") {
        // Stopping: a call that waits answers now; its run waits on in the store for the next call.
        if (this.#shutdown.stopping) return this.#stillWaiting(state);
        if (state.status === "awaiting_approval" && answered !== state.answers.length) {
          answered = state.answers.length;
          const digest = state.pending?.digest;
          if (state.answers.some((answer) => answer.digest === digest)) {
            state = await this.#resume(state);
            continue;
          }
        }
        // Gateways in other processes may have started a run of the same call at the same moment:
        // all of them wait on the first (answered runs first, then the least id); a run this call
        // started that is not the first is cancelled, so one approval is asked for, once.
        const first = state.status === "awaiting_approval" ? await this.#firstWaiting(call) : undefined;
        if (first !== undefined && first.runId !== state.runId) {
          if (state.runId === mine) await this.agent.cancel(state.runId).catch(() => undefined);
          state = first;
          answered = -1;
          continue;
        }
        if (state.status === "awaiting_approval" && state.pending !== undefined && asked !== state.pending.digest) {
          asked = state.pending.digest;
          this.#ask(state, context, asking.signal);
        }
        const left = this.#config.waitMs - (Date.now() - started);
        if (left <= 0 || context.signal?.aborted === true || this.#shutdown.stopping) return this.#stillWaiting(state);
        if (state.status === "awaiting_approval") context.progress?.(this.#approveLine(state));
        await until(Math.min(left, this.#config.pollMs), [context.signal, this.#shutdown.signal]);
        state = (await this.#store.load(state.runId)) ?? state;
      }
    } finally {
      asking.abort();
    }
    return answerOf(state, slot.result);
  }

  /** The run of this call that waits for approval and that every gateway waits on, if any. */
  async #firstWaiting(call: GatewayCall): Promise<RunState | undefined> {
    // Only this call's runs are read (a range of the index on run ids), not every waiting run of the store.
    const waiting = (await this.#store.list({ status: "awaiting_approval", runIdPrefix: runPrefixOf(call) })).filter(
      (item) => isRunOf(item.runId, call),
    );
    const rank = (item: RunState): number => (item.answers.length > 0 ? 0 : 1);
    return waiting.sort((a, b) => rank(a) - rank(b) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))[0];
  }

  /** Asks the person at the client, if the config names them and the client can be asked; records the answer. */
  #ask(state: RunState, context: CallContext, signal: AbortSignal): void {
    const as = this.#config.elicitAs;
    const pending = state.pending;
    if (as === undefined || context.ask === undefined || pending === undefined) return;
    const question = `leash asks: may ${pending.tool} run (${pending.effect}) with ${JSON.stringify(pending.args).slice(0, 500)}?${pending.reason === undefined ? "" : ` Reason: ${pending.reason}.`} Run ${state.runId}.`;
    void context
      .ask(question, signal)
      .then(async (answer) => {
        if (answer === undefined || signal.aborted) return;
        const approval = new Approval(pending.digest, {
          granted: answer.granted,
          approver: as,
          ...(answer.note === undefined ? {} : { note: answer.note }),
        });
        await this.#store.answer(state.runId, approval, {
          origin: { via: "mcp-elicitation", user: as, host: hostname() },
        });
      })
      // An answer that came too late (the run moved on) or a client that could not be asked: the wait goes on.
      .catch(() => undefined);
  }

  async #resume(state: RunState): Promise<RunState> {
    try {
      return await this.agent.resume(state.runId);
    } catch (error) {
      // Another gateway resumed it first (read where it is now), or the answers so far are from
      // people the policy does not let approve: they decide nothing, and the run waits on.
      if (isLeashError(error) && ["stale_state", "run_ended", "approver_not_allowed"].includes(error.code))
        return (await this.#store.load(state.runId)) ?? state;
      throw error;
    }
  }

  #approveLine(state: RunState): string {
    const digest = state.pending === undefined ? "" : ` --digest ${state.pending.digest.slice(0, 16)}`;
    return `leash approve ${state.runId} --as NAME${digest} ${this.#dbArgs}`.trim();
  }

  #stillWaiting(state: RunState): CallResult {
    if (state.status === "running")
      return errorResult(
        `leash: the call is running in run ${state.runId}, in another process on the same store; see it with \`leash show ${state.runId} ${this.#dbArgs}\`.`,
      );
    return errorResult(
      `leash: the call waits for a person's approval in run ${state.runId}. Approve it with \`${this.#approveLine(state)}\` (or deny it), then make the same call again: it runs once.`,
    );
  }
}
