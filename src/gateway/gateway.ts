import { Agent } from "../agent/agent.js";
import { Policy } from "../policy/policy.js";
import { canonicalJson } from "../json/canonical-json.js";
import { isLeashError } from "../errors/leash-error.js";
import { listSummaries } from "../stores/list-summaries.js";
import { toJson } from "../json/json-value.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { Guard } from "../guards/guard.js";
import type { Json } from "../json/json-value.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "../stores/run-store.js";
import type { RunSummary } from "../state/run-summary.js";
import type { Tool } from "../tools/tool.js";
import { answerOf, gatewayPlanner } from "./gateway-answers.js";
import type { GatewayClaims } from "./gateway-claims.js";
import { SharedCall } from "./gateway-shared.js";
import type { CallContext } from "./gateway-shared.js";
import { gatewayMayApprove } from "./gateway-approvers.js";
import type { GatewayApproval } from "./gateway-approvers.js";
import { askAtClient, elicitationQuestion } from "./gateway-elicitation.js";
import { approveLine, notCounted, notCountedText, stillWaiting } from "./gateway-waiting.js";
import type { WaitingView } from "./gateway-waiting.js";
import type { GatewayConfig } from "./gateway-config.js";
import { rawResults } from "./upstreams.js";
import type { RawSlot, ToolChanges } from "./upstreams.js";
import { SHUTTING_DOWN, Shutdown, until } from "./gateway-shutdown.js";
import type { Stopped } from "./gateway-shutdown.js";
import type { CallResult, GatewayCall } from "./gateway-runs.js";
import {
  driverMayBeAlive,
  maxArgsChars,
  OLDER_RUN_PREFIX,
  RUN_PREFIX,
  callKey,
  errorResult,
  goalOf,
  isRunOf,
  newRunId,
  runPrefixOf,
} from "./gateway-runs.js";

/** How many summaries of running runs a recovery reads at a time. */
const RECOVER_PAGE_LIMIT = 500;

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
  readonly #busy = new Map<string, { shared: SharedCall; work: Promise<CallResult> }>();
  readonly #view: WaitingView;
  readonly #changes: ToolChanges | undefined;
  readonly #shutdown = new Shutdown();
  readonly #claims: GatewayClaims | undefined;

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
    claims?: GatewayClaims,
  ) {
    this.#claims = claims;
    this.#config = config;
    this.#changes = changes;
    this.#store = store;
    this.#tools = new Map(tools.map((item) => [item.name, item]));
    const { approvers } = config.policy;
    const approval: GatewayApproval = {
      ...(approvers === undefined ? {} : { approvers }),
      elicitationApproves: config.elicitationApproves,
    };
    this.#view = { dbArgs, approval, ...(config.inbox === undefined ? {} : { inbox: config.inbox }) };
    this.agent = new Agent({
      name: "leash-mcp-gateway",
      tools,
      planner: gatewayPlanner,
      store,
      audit: store,
      guards,
      limits: config.limits,
      policy: new Policy({
        grantedScopes: config.policy.grantedScopes,
        allowEffects: config.policy.allowEffects,
        ...(config.policy.approvalFor === undefined ? {} : { approvalFor: config.policy.approvalFor }),
        // Who may approve, and whether an answer given at the client counts (its origin says so).
        mayApprove: gatewayMayApprove(approval),
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
   * Crash recovery: resumes the gateway's `running` runs whose driver is provably gone, once this
   * process wins their claim (see {@link GatewayClaims}). An idempotent call starts again; any other is
   * `interrupted`, never run twice. Returns how many runs were recovered and left.
   */
  recover(onRecovered: (state: RunState) => void = () => undefined): Promise<{ recovered: number; left: number }> {
    return this.#shutdown.track(this.#recover(onRecovered));
  }

  async #recover(onRecovered: (state: RunState) => void): Promise<{ recovered: number; left: number }> {
    // Only the gateway's running runs are read: summaries, a range of the index on run ids, a page at a time.
    const running: string[] = [];
    for (const runIdPrefix of [RUN_PREFIX, OLDER_RUN_PREFIX]) {
      let cursor: string | undefined;
      do {
        const page = await listSummaries(this.#store, {
          status: "running",
          runIdPrefix,
          limit: RECOVER_PAGE_LIMIT,
          ...(cursor === undefined ? {} : { cursor }),
        });
        running.push(...page.runs.map((run) => run.runId));
        cursor = page.next;
      } while (cursor !== undefined);
    }
    let recovered = 0;
    for (const runId of running) {
      if (this.#shutdown.stopping) break;
      // A run of an older gateway, without a claim, is taken by the rule of the run id's host and pid.
      const claims = this.#claims;
      const olderRuleSaysGone = (): boolean => !driverMayBeAlive(runId);
      if (claims === undefined ? !olderRuleSaysGone() : !(await claims.takeOver(runId, olderRuleSaysGone))) continue;
      try {
        onRecovered(await this.agent.resume(runId));
        recovered += 1;
      } catch (error) {
        if (!isLeashError(error)) throw error;
      } finally {
        await claims?.release(runId);
      }
    }
    return { recovered, left: running.length - recovered };
  }

  /** Answers one downstream `tools/call`. Identical calls of one client at once share one run. */
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
    const call: GatewayCall = { tool, args, ...(context.client === undefined ? {} : { client: context.client }) };
    const key = callKey(call);
    const busy = this.#busy.get(key);
    if (busy !== undefined) return busy.shared.attach(context, busy.work);
    const slot: RawSlot = {};
    const shared = new SharedCall(this.#config.waitMs, (state) => this.#waiting(state, context));
    const work = rawResults
      .run(slot, () => this.#call(call, shared, slot))
      // A refusal by leash itself (a goal too large, a run another process moved) is the call's error
      // result, never a protocol error.
      .catch((error: unknown) => {
        if (!isLeashError(error)) throw error;
        return errorResult(`leash: the call did not run: ${error.code}: ${error.message}`);
      })
      .finally(() => this.#busy.delete(key));
    this.#busy.set(key, { shared, work });
    // The work is tracked whole (a stop waits for it), whichever callers have left.
    void this.#shutdown.track(work).catch(() => undefined);
    return shared.attach(context, work);
  }

  /**
   * Stops taking calls (a new one is an error result that says the gateway is shutting down), answers
   * the calls that wait for a person at once (their runs stay waiting in the store), and resolves once
   * the calls being executed have ended, or after `ms`, whichever is first.
   */
  stop(ms: number): Promise<Stopped> {
    return this.#shutdown.stop(ms);
  }

  async #call(call: GatewayCall, shared: SharedCall, slot: RawSlot): Promise<CallResult> {
    const { context } = shared;
    const since = new Date().toISOString();
    const waiting = await this.#first(call);
    let state = waiting ?? (await this.#start(call));
    shared.latest = state;
    const mine = waiting === undefined ? state.runId : undefined;
    let answered = -1;
    const asking = new AbortController();
    let asked: string | undefined;
    try {
      // Until the run ends: it waits for a person, or another gateway on the same store is running it.
      while (state.status === "awaiting_approval" || state.status === "running") {
        // Stopping: a call that waits answers now; its run waits on in the store for the next call.
        shared.latest = state;
        if (this.#shutdown.stopping) return shared.waitingAnswer(state);
        // Gateways in other processes may have started a run of the same call at the same moment:
        // all of them settle on the first (see #first) before any resumes one; a run this call
        // started that is not the first is cancelled, so one approval is asked for, and one run runs.
        const first = state.status === "awaiting_approval" ? await this.#first(call, since) : undefined;
        if (first !== undefined && first.runId !== state.runId) {
          if (state.runId === mine) await this.agent.cancel(state.runId).catch(() => undefined);
          state = first;
          answered = -1;
          continue;
        }
        if (state.status === "awaiting_approval" && answered !== state.answers.length) {
          answered = state.answers.length;
          const digest = state.pending?.digest;
          if (state.answers.some((answer) => answer.digest === digest)) {
            const settled = await this.#settleAndResume(call, state, since);
            // Another gateway settles this call now, or another run is first: look again.
            if (settled === "busy") answered = -1;
            else {
              if (settled === "other") answered = -1;
              else state = settled;
              continue;
            }
          }
        }
        if (state.status === "awaiting_approval" && state.pending !== undefined && asked !== state.pending.digest) {
          asked = state.pending.digest;
          if (this.#config.elicitAs !== undefined)
            askAtClient(
              this.#store,
              { as: this.#config.elicitAs, client: call.client ?? "stdio", ...this.#serverOf(call.tool) },
              state,
              context,
              asking.signal,
            );
        }
        const left = shared.deadline - Date.now();
        if (left <= 0 || context.signal?.aborted === true || this.#shutdown.stopping)
          return shared.waitingAnswer(state);
        if (state.status === "awaiting_approval") context.progress?.(this.#progressLine(state));
        await until(Math.min(left, this.#config.pollMs), [context.signal, this.#shutdown.signal]);
        state = (await this.#store.load(state.runId)) ?? state;
      }
    } finally {
      asking.abort();
    }
    return answerOf(state, slot.result);
  }

  /** The answer of a call that stops waiting (see {@link stillWaiting}). */
  #waiting(state: RunState | undefined, context: CallContext): CallResult {
    const pending = state?.pending;
    const tooLongToAsk =
      this.#config.elicitAs !== undefined &&
      context.ask !== undefined &&
      pending?.kind === "call" &&
      elicitationQuestion(pending, state?.runId ?? "", this.#serverOf(pending.tool).server) === undefined;
    return stillWaiting(state, this.#view, { tooLongToAsk, outputSchema: context.outputSchema === true });
  }

  /** The progress line of a waiting call: how to approve, and which answers recorded so far do not count. */
  #progressLine(state: RunState): string {
    return `${approveLine(state, this.#view.dbArgs)}${notCountedText(notCounted(state, this.#view.approval))}`;
  }

  /** The upstream server of a gateway tool, as its definition names it. */
  #serverOf(tool: string): { server?: string } {
    const server = (this.#tools.get(tool)?.definition as Record<string, unknown> | undefined)?.server;
    return typeof server === "string" ? { server } : {};
  }

  /** Starts a run of the call, claimed by this process while it runs (not while it waits for a person). */
  async #start(call: GatewayCall): Promise<RunState> {
    const runId = newRunId(call);
    await this.#claims?.claim(runId);
    await this.#claims?.recordApproval(runId, this.#view.approval);
    try {
      return await this.agent.run(goalOf(call), { runId });
    } finally {
      await this.#claims?.release(runId);
    }
  }

  /**
   * The run of this call every gateway settles on, if any: one resumed after an answer since `since`
   * (running, or ended other than cancelled) first, then a waiting one that has answers, then the least run id. With
   * no `since`, only waiting runs count (a new call joins the run that waits, never an old run).
   */
  async #first(call: GatewayCall, since?: string): Promise<RunState | undefined> {
    // Only this call's runs are looked at (a range of the index on run ids), from their summaries;
    // only those that may be first are loaded: a waiting run, or (with `since`) one that moved since.
    const mayBeFirst = (run: RunSummary): boolean =>
      run.status === "awaiting_approval" || (since !== undefined && run.status !== "stopped" && run.updatedAt >= since);
    const runs: RunState[] = [];
    let cursor: string | undefined;
    do {
      const page = await listSummaries(this.#store, {
        ...(since === undefined ? { status: "awaiting_approval" as const } : {}),
        runIdPrefix: runPrefixOf(call),
        limit: RECOVER_PAGE_LIMIT,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const run of page.runs) {
        if (!isRunOf(run.runId, call) || !mayBeFirst(run)) continue;
        const state = await this.#loadReadable(run.runId);
        if (state !== null) runs.push(state);
      }
      cursor = page.next;
    } while (cursor !== undefined);
    // Resumed after an answer since this call began: running, or ended other than cancelled.
    const moved = (item: RunState): boolean =>
      since !== undefined &&
      (item.steps[0]?.approval !== undefined || item.answers.length > 0) &&
      item.status !== "awaiting_approval" &&
      item.status !== "stopped" &&
      item.updatedAt >= since;
    const candidates = runs.filter((item) => item.status === "awaiting_approval" || moved(item));
    const rank = (item: RunState): number => (moved(item) ? 0 : item.answers.length > 0 ? 1 : 2);
    return candidates.sort((a, b) => rank(a) - rank(b) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))[0];
  }

  /** A run's stored state, or `null` when it is gone or cannot be read (a listing leaves such a run out too). */
  async #loadReadable(runId: string): Promise<RunState | null> {
    try {
      return await this.#store.load(runId);
    } catch (error) {
      if (isLeashError(error, "invalid_state") || isLeashError(error, "unsupported_version")) return null;
      throw error;
    }
  }

  /**
   * Resumes an approved run of the call once this process holds the call's claim (one gateway at a
   * time settles a call) and the run is still the first (see #first): `"busy"` when another gateway
   * holds the call's claim, `"other"` when another run is first now.
   */
  async #settleAndResume(call: GatewayCall, state: RunState, since: string): Promise<RunState | "busy" | "other"> {
    const key = `call:${runPrefixOf(call)}`;
    if (this.#claims !== undefined && !(await this.#claims.claim(key))) return "busy";
    try {
      const first = await this.#first(call, since);
      if (first !== undefined && first.runId !== state.runId) return "other";
      return await this.#resume(state);
    } finally {
      await this.#claims?.release(key);
    }
  }

  async #resume(state: RunState): Promise<RunState> {
    // Another live gateway drives the run: read where it is, and wait on it.
    if (this.#claims !== undefined && !(await this.#claims.claim(state.runId)))
      return (await this.#store.load(state.runId)) ?? state;
    try {
      return await this.agent.resume(state.runId);
    } catch (error) {
      // Another gateway resumed it first (read where it is now), or the answers so far are from
      // people the policy does not let approve: they decide nothing, and the run waits on.
      if (isLeashError(error) && ["stale_state", "run_ended", "approver_not_allowed"].includes(error.code))
        return (await this.#store.load(state.runId)) ?? state;
      throw error;
    } finally {
      await this.#claims?.release(state.runId);
    }
  }
}
