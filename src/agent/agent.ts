import type { AuditSink } from "../audit/audit-sink.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { isLeashError, LeashError, StateError } from "../errors/index.js";
import { ActiveRun } from "../run/active-run.js";
import { containFailure } from "../run/contain-failure.js";
import type { AgentCore, CompiledSkill } from "../run/agent-core.js";
import type { ResumeOptions, ResumePlan } from "../run/resume-run.js";
import { MAX_STARTS, planResume } from "../run/resume-run.js";
import { actStep, endRun, runLoop } from "../run/run-loop.js";
import type { InternalRunOptions, RunOptions } from "../run/start-run.js";
import { prepareRun } from "../run/start-run.js";
import type { Skill } from "../skills/skill.js";
import type { Policy } from "../policy/policy.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import type { RunStatus } from "../state/outcomes.js";
import { RunState } from "../state/run-state.js";
import type { AgentEvents } from "./agent-events.js";
import { leftoverAnswerRecords, lostApprovalRecords } from "../run/audit-answers.js";
import { endedByCancel, withdrawCall } from "../run/withdrawn-call.js";
import { AgentEmitter } from "./agent-events.js";
import type { AgentOptions } from "./agent-options.js";
import { buildCore, checkCallOptions, compileSkill } from "./agent-options.js";
import { AutoCheckpointer } from "./auto-checkpoint.js";

/**
 * What a resume works on, read once: a run id as given, or a parsed copy of a state (its `toJSON()`
 * called once), so the id checked here is the id of the state resumed. Anything else goes on as it
 * is, to be refused later with a clear error.
 */
function resumeTarget(target: unknown): { target: unknown; runId: string | undefined } {
  if (typeof target === "string") return { target, runId: target };
  if (typeof target !== "object" || target === null) return { target, runId: undefined };
  let toJSON: unknown;
  try {
    toJSON = (target as { toJSON?: unknown }).toJSON;
  } catch {
    return { target, runId: undefined };
  }
  if (typeof toJSON !== "function") return { target, runId: undefined };
  const copy = RunState.fromJSON((toJSON as () => unknown).call(target));
  return { target: copy, runId: copy.runId };
}

/** Aborts `controller` when `signal` aborts (now or later); returns what stops listening. */
function linkAbort(signal: AbortSignal, controller: AbortController): () => void {
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** What `agent.do` returns: the outcome of the last attempt. */
export interface SkillOutcome<O> {
  done: boolean;
  status: RunStatus;
  /** The run id of the last attempt. */
  task: string;
  attempt: number;
  output?: O;
  state: RunState;
}

/**
 * Runs a planner's decisions through tools under a policy, within limits, pausing for a person where
 * a call needs approval, and writing every step to a hash-chained audit trail.
 *
 * @example
 * const agent = new Agent({ tools: [lookup], planner, policy: new Policy({ grantedScopes: ["docs:read"] }) });
 * const state = await agent.run("what is a chunk's text?");
 * console.log(state.status, state.answer, verifyAudit(agent.audit.records));
 */
export class Agent {
  readonly #core: AgentCore;
  readonly #events = new AgentEmitter();
  readonly #active = new Map<string, { run: ActiveRun; done: Promise<RunState> }>();
  /**
   * Run ids this agent is starting, resuming or driving: one driver per run in one agent. Each is
   * registered before the first await, with a controller that a cancel aborts, so a cancel reaches a
   * run while it is being prepared or claimed too.
   */
  readonly #driving = new Map<string, { controller: AbortController; done?: Promise<RunState> }>();
  /** The cancels under way, by run id: a second cancel of a run waits for the first. */
  readonly #cancelling = new Map<string, Promise<RunState>>();

  /** The automatic checkpoints of the `checkpoint` option, when it is given. */
  readonly #checkpoints: AutoCheckpointer | undefined;

  constructor(options: AgentOptions) {
    const events = this.#events;
    const core = buildCore(options);
    const checkpoints =
      options.checkpoint === undefined
        ? undefined
        : new AutoCheckpointer(options.checkpoint, core.audit, (event) => events.emit("checkpoint_failed", event));
    this.#checkpoints = checkpoints;
    this.#core = {
      ...core,
      feed: {
        wantsText: () => events.listens("text"),
        text: (event) => events.emit("text", event),
        wantsRecords: () => checkpoints !== undefined || events.listens("record"),
        records: (records) => {
          for (const record of records) events.emit("record", record);
          checkpoints?.written(records);
        },
      },
    };
  }

  /** The agent's audit sink. */
  get audit(): AuditSink & { readonly records?: AuditRecord[] } {
    return this.#core.audit;
  }

  /** The agent's policy: what it may do, and who may answer its requests (`mayApprove`). */
  get policy(): Policy {
    return this.#core.policy;
  }

  /** The agent's name. */
  get name(): string {
    return this.#core.name;
  }

  /**
   * Runs a goal until it completes, stops, fails or pauses for a person.
   *
   * @example const state = await agent.run("save the report", { principal: "mia", limits: { maxSteps: 8 } });
   */
  async run(goal: string, options: RunOptions = {}): Promise<RunState> {
    return this.#start(goal, checkCallOptions(options, "run"));
  }

  async #start(goal: string, options: InternalRunOptions): Promise<RunState> {
    const given = typeof options === "object" && options !== null ? options.runId : undefined;
    if (typeof given === "string" && this.#driving.has(given)) {
      throw new StateError(
        "run_exists",
        `Run \`${given}\` is being run by this agent already; a run id is never reused.`,
        {
          details: { runId: given },
        },
      );
    }
    const entry: { controller: AbortController; done?: Promise<RunState> } = { controller: new AbortController() };
    if (typeof given === "string") this.#driving.set(given, entry);
    try {
      entry.done = this.#startReserved(goal, options, entry.controller.signal);
      return await entry.done;
    } finally {
      if (typeof given === "string" && this.#driving.get(given) === entry) this.#driving.delete(given);
    }
  }

  async #startReserved(goal: string, options: InternalRunOptions, early: AbortSignal): Promise<RunState> {
    const run = await prepareRun(this.#core, goal, options);
    const signals = [options.signal, early].filter((signal) => signal !== undefined);
    const links = signals.map((signal) => linkAbort(signal, run.controller));
    try {
      return await this.#drive(run, () => runLoop(run));
    } finally {
      for (const unlink of links) unlink();
    }
  }

  async #drive(run: ActiveRun, body: () => Promise<RunState>): Promise<RunState> {
    const { runId } = run.state;
    // The run is registered before its body starts: a planner's very first call may already cancel it.
    // Whatever the body throws ends the run failed and saved (containFailure), never `running`.
    const done = Promise.resolve()
      .then(body)
      .catch((error: unknown) => containFailure(run, error));
    this.#active.set(runId, { run, done });
    try {
      return await done;
    } finally {
      if (this.#active.get(runId)?.run === run) this.#active.delete(runId);
      // The checkpoints the run made due are stored (or reported) before its driver returns.
      await this.#checkpoints?.settled();
    }
  }

  /**
   * Resumes a paused or crashed run, by id from the store or from a copy. Every gate runs again; an
   * approval runs its action once.
   *
   * @example await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
   */
  async resume(target: string | RunState, options: ResumeOptions = {}): Promise<RunState> {
    checkCallOptions(options, "resume");
    const read = resumeTarget(target);
    const runId = read.runId;
    target = read.target as string | RunState;
    if (runId !== undefined && (this.#driving.has(runId) || this.#active.has(runId))) {
      throw new StateError(
        "stale_state",
        `Run \`${runId}\` is being driven by this agent; it cannot be resumed until that ends.`,
        { details: { runId } },
      );
    }
    const entry: { controller: AbortController; done?: Promise<RunState> } = { controller: new AbortController() };
    if (runId !== undefined) this.#driving.set(runId, entry);
    try {
      entry.done = this.#resume(target, options, entry.controller.signal);
      return await entry.done;
    } finally {
      if (runId !== undefined && this.#driving.get(runId) === entry) this.#driving.delete(runId);
    }
  }

  async #resume(target: string | RunState, options: ResumeOptions, early: AbortSignal): Promise<RunState> {
    const plan = await planResume(this.#core, target, options, (name) => this.#skill(name));
    if (plan.type === "unchanged") {
      // A cancel asked for while the resume looked: the paused run is ended as a cancel ends one.
      return early.aborted ? this.#cancelStored(plan.state.runId) : plan.state;
    }
    const { run } = plan;
    const unlink = linkAbort(early, run.controller);
    try {
      return await this.#driveResumed(plan);
    } finally {
      unlink();
    }
  }

  #driveResumed(plan: Exclude<ResumePlan, { type: "unchanged" }>): Promise<RunState> {
    const { run } = plan;
    return this.#drive(run, async () => {
      if (plan.type === "approval") {
        const ended = await actStep(run, plan.step, { restart: false, answer: plan.answer.toJSON() });
        return ended ?? runLoop(run);
      }
      const step = plan.step;
      if (step?.outcome === "stopped") {
        // The trail said the saved call never started: the run ended there, as it does now.
        const code = step.error?.code;
        return endRun(run, { status: "stopped", reason: code === "max_duration" ? "max_duration" : "cancelled" });
      }
      if (step !== undefined && step.decision.type === "act" && (step.starts ?? 0) > 0) {
        const found = run.tools.get(step.decision.tool);
        if (found?.idempotent === true && (step.starts ?? 0) < MAX_STARTS) {
          const ended = await actStep(run, step, { restart: true });
          if (ended !== undefined) return ended;
        } else {
          // Whether a call of a non-idempotent tool took effect is unknown: a person must look,
          // and it is never repeated blindly.
          step.outcome = "interrupted";
          step.error = {
            code: "interrupted",
            message:
              found?.idempotent === true
                ? `\`${step.decision.tool}\` was started ${step.starts} times without finishing; it is not started again.`
                : `The process stopped while \`${step.decision.tool}\` was running; whether it took effect is unknown, so it is not repeated.`,
          };
          run.record("tool_ended", {
            step: step.index,
            tool: step.decision.tool,
            outcome: "interrupted",
            resultDigest: null,
            error: step.error,
          });
        }
      } else if (step !== undefined && step.decision.type === "act") {
        const ended = await actStep(run, step, { restart: false });
        if (ended !== undefined) return ended;
      } else if (step !== undefined) {
        step.outcome = "interrupted";
        step.error = { code: "interrupted", message: "The process stopped before this answer was judged." };
      }
      return runLoop(run);
    });
  }

  /**
   * Cancels a run: a run active in this process stops before its next call (its tools' signals are
   * aborted); a paused run in the store is ended as stopped. Returns the run's final state.
   */
  async cancel(runId: string): Promise<RunState> {
    // A second cancel of the same run from this agent waits for the first and returns its result.
    const running = this.#cancelling.get(runId);
    if (running !== undefined) return running;
    const done = this.#cancel(runId);
    this.#cancelling.set(runId, done);
    try {
      return await done;
    } finally {
      if (this.#cancelling.get(runId) === done) this.#cancelling.delete(runId);
    }
  }

  async #cancel(runId: string): Promise<RunState> {
    const reason = new LeashError("limit_reached", `Run \`${runId}\` was cancelled.`);
    const active = this.#active.get(runId);
    active?.run.controller.abort(reason);
    // A run this agent is starting or resuming is cancelled where it is, and its end awaited.
    const driving = this.#driving.get(runId);
    if (driving !== undefined) {
      driving.controller.abort(reason);
      if (driving.done !== undefined) {
        try {
          return await driving.done;
        } catch {
          // The resume was refused (an approver not allowed, say): the stored run is cancelled all the same.
          return this.#cancelStored(runId);
        }
      }
    }
    if (active !== undefined) return active.done;
    return this.#cancelStored(runId);
  }

  /** Ends a run that no process here drives (paused, or crashed) as stopped, from the store. */
  async #cancelStored(runId: string): Promise<RunState> {
    const { store } = this.#core;
    if (store === undefined)
      throw new StateError("run_not_found", `Run \`${runId}\` is not running here and this agent has no store.`, {
        details: { runId },
      });
    const state = await store.load(runId);
    if (state === null)
      throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
    if (ENDED_STATUSES.has(state.status)) return state;
    const trail = await this.#core.audit.read(runId);
    const last = trail.at(-1);
    const run = new ActiveRun(this.#core, state, {
      head: last === undefined ? state.auditHead : { seq: last.seq, digest: last.digest },
      stored: true,
      skill: this.#skill(state.skill),
    });
    run.controller.abort();
    // A trail ahead of the state may say the saved call never started: it is taken back, not interrupted.
    const headSeq = state.auditHead?.seq ?? -1;
    withdrawCall(
      run,
      trail.filter((record) => record.seq > headSeq),
    );
    // Answers recorded for the paused run and not yet in a separate sink are audited with the claim, and
    // so is the answer a crashed resume's claim saved in the state but never wrote to the trail.
    const leftover = leftoverAnswerRecords(this.#core, state, trail);
    const claimed = run.claim(
      [["run_resumed", { reason: "cancel" }], ...leftover, ...lostApprovalRecords(state, trail, leftover)],
      () => {
        state.answers = [];
      },
    );
    try {
      await claimed;
    } catch (error) {
      // Another process moved the run first (a cancel of its own, say): a run that has ended is returned.
      if (!isLeashError(error, "stale_state")) throw error;
      const now = await endedByCancel(this.#core, runId, headSeq);
      if (now !== undefined) return now;
      throw error;
    }
    return endRun(run, { status: "stopped", reason: "cancelled" });
  }

  /**
   * Does a skill for an input: its brief is the goal, its tools the only tools, its output checked by
   * its schema and `check`. Failed work is tried again from the beginning, as a run of its own, up
   * to `skill.retry.attempts` in all; `gave_up` is emitted once after the last attempt failed.
   */
  async do<I, O>(
    skill: Skill<I, O>,
    input: I,
    options: { principal?: string; limits?: RunOptions["limits"] } = {},
  ): Promise<SkillOutcome<O>> {
    checkCallOptions(options, "do");
    const compiled = this.#addSkill(skill);
    const attempts = skill.retry?.attempts ?? 1;
    let state: RunState | undefined;
    let attempt = 0;
    while (attempt < attempts) {
      attempt += 1;
      const goal = skill.brief(input);
      const runOptions: InternalRunOptions = { skill: compiled, attempt };
      if (options.principal !== undefined) runOptions.principal = options.principal;
      if (options.limits !== undefined) runOptions.limits = options.limits;
      if (state !== undefined) runOptions.retryOf = state.runId;
      state = await this.#start(goal, runOptions);
      if (state.status !== "failed" || state.failure === undefined) break;
      this.#events.emit("run_failed", { task: state.runId, attempt, failure: state.failure });
      // Work a guard blocked at the model, or that waited on a person, is not tried again.
      const waited = state.steps.some((step) => step.approval !== undefined);
      if (state.failure.code === "model_blocked" || waited) break;
    }
    if (state === undefined) throw new LeashError("invalid_skill", "The skill made no attempt.");
    if (state.status === "failed" && state.failure !== undefined) {
      const gaveUp = { task: state.runId, attempts: attempt, problem: state.failure.message };
      state = await this.#recordAfterEnd(state, "gave_up", gaveUp);
      this.#events.emit("gave_up", gaveUp);
    }
    const outcome: SkillOutcome<O> = {
      done: state.status === "completed",
      status: state.status,
      task: state.runId,
      attempt: state.attempt,
      state,
    };
    if (state.status === "completed") outcome.output = state.answer as O;
    return outcome;
  }

  /**
   * Listens to an agent event: `run_failed` once per failed attempt, `gave_up` once after the last.
   * Returns a function that stops listening. A handler that throws does not break the run.
   */
  on<E extends keyof AgentEvents>(event: E, handler: (payload: AgentEvents[E]) => void): () => void {
    return this.#events.on(event, handler);
  }

  async #recordAfterEnd(state: RunState, event: string, data: unknown): Promise<RunState> {
    const run = new ActiveRun(this.#core, state, {
      head: state.auditHead,
      stored: this.#core.store !== undefined,
      skill: undefined,
    });
    run.record(event, data);
    await run.checkpoint();
    return run.state;
  }

  #addSkill(skill: Skill<never, never>): CompiledSkill {
    const known = this.#core.skills.get(skill.name);
    if (known?.skill === skill) return known;
    const compiled = compileSkill(skill, this.#core.tools);
    this.#core.skills.set(compiled.skill.name, compiled);
    return compiled;
  }

  #skill(name: string | undefined): CompiledSkill | undefined {
    if (name === undefined) return undefined;
    const found = this.#core.skills.get(name);
    if (found === undefined) {
      throw new StateError(
        "invalid_state",
        `The run was doing skill \`${name}\`, which this agent does not know; pass it in \`skills\`.`,
      );
    }
    return found;
  }
}
